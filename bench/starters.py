"""Starters proposed at ingest over the shipped corpora: what they are, whether each is
answered with a citation, and what proposing adds to the ingest time.

Ingests each corpus into its own collection, in a fresh data directory, with the embedded
defaults (SQLite, hybrid MiniLM retrieval, the extractive composer, 3 starters per source),
timing the whole ingest and the proposing inside it, then asks every listed starter through
the answer pipeline again; the same for this repository's README and docs, which the service
indexes on its first start. Prints one table per corpus and a summary of the ingest times.

    .venv/bin/python -m bench.starters [--corpora ../shared/data/corpora] [--retrieval keyword]

Times are wall clock and CPU time of this process (the CPU column stays meaningful on a
shared machine; the embedding model's threads count in it).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from groundwork.answer.service import AnswerOptions
from groundwork.generation.base import Turn
from groundwork.ingest.bootstrap import doc_files
from groundwork.ingest.pipeline import Ingestor
from groundwork.retrieval.base import SearchFilter
from groundwork.retrieval.factory import get_retriever
from groundwork.settings import Settings
from groundwork.starters.factory import answer_service, starter_proposer
from groundwork.storage.factory import get_storage, get_stores

REPO = Path(__file__).resolve().parents[1]
#: collection → the file of ../shared/data/corpora ingested into it.
CORPORA = {
    "constitution": "us-constitution/constitution.txt",
    "catechism": "baltimore-catechism/catechism.txt",
    "federalist": "federalist/federalist.html",
}


@dataclass
class Timing:
    """Wall and CPU seconds of the whole ingest and of the proposing inside it."""

    wall: float = 0.0
    cpu: float = 0.0
    propose_wall: float = 0.0
    propose_cpu: float = 0.0


def ingest(
    collection: str, files: list[Path], root: Path, retrieval: str
) -> tuple[Timing, Settings]:
    settings = Settings(
        data_dir=Path(tempfile.mkdtemp(prefix="starters-bench-")),
        bootstrap_docs=False,
        retrieval=retrieval,  # type: ignore[arg-type]
    )
    proposer = starter_proposer(settings)
    assert proposer is not None
    timing = Timing()
    propose = proposer.propose

    def timed(*args: Any) -> Any:
        wall, cpu = time.perf_counter(), time.process_time()
        try:
            return propose(*args)
        finally:
            timing.propose_wall += time.perf_counter() - wall
            timing.propose_cpu += time.process_time() - cpu

    proposer.propose = timed  # type: ignore[method-assign]
    ingestor = Ingestor(get_retriever(settings), get_storage(settings), proposer)
    get_retriever(settings).count()  # opens the index outside the timing
    wall, cpu = time.perf_counter(), time.process_time()
    report = ingestor.ingest(files, collection=collection, root=root)
    timing.wall, timing.cpu = time.perf_counter() - wall, time.process_time() - cpu
    if report.failed:
        raise SystemExit(f"{collection}: {report.failed}")
    return timing, settings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpora", type=Path, default=REPO.parent / "shared/data/corpora")
    parser.add_argument("--retrieval", choices=["embedded", "keyword"], default="embedded")
    args = parser.parse_args()
    sets = {c: ([args.corpora / name], (args.corpora / name).parent) for c, name in CORPORA.items()}
    sets["docs"] = (doc_files(REPO), REPO)
    rows = []
    for collection, (files, root) in sets.items():
        name = ", ".join(f.name for f in files) if len(files) < 3 else f"{len(files)} files"
        timing, settings = ingest(collection, files, root, args.retrieval)
        starters = get_stores(settings).starters.list_starters(collection)
        answers = answer_service(settings)
        print(f"\n{collection} ({name})\n")
        print("| starter | language | citations | first cited heading |")
        print("|---|---|---:|---|")
        for starter in starters:
            answer = answers.answer(
                [Turn("user", starter.text)],
                SearchFilter(collections=[collection]),
                AnswerOptions(language=starter.language),
            )
            heading = answer.citations[0].cited_text_heading if answer.citations else None
            print(f"| {starter.text} | {starter.language} | {len(answer.citations)} | {heading} |")
        rows.append((collection, len(files), timing, len(starters)))
    print(f"\nretrieval: {args.retrieval}; seconds, wall (CPU of this process)\n")
    print("| corpus | files | ingest | of which proposing | proposing % of CPU | starters |")
    print("|---|---:|---:|---:|---:|---:|")
    for collection, count, t, kept in rows:
        print(
            f"| {collection} | {count} | {t.wall:.2f} ({t.cpu:.2f}) "
            f"| {t.propose_wall:.2f} ({t.propose_cpu:.2f}) "
            f"| {100 * t.propose_cpu / t.cpu:.0f} | {kept} |"
        )


if __name__ == "__main__":
    main()
