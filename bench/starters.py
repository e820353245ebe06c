"""Starters proposed at ingest over the shipped corpora: what they are, whether each is
answered with a citation, and what proposing adds to the ingest time.

Ingests each corpus into its own collection twice, in fresh data directories, with the
embedded defaults (SQLite, hybrid MiniLM retrieval, the extractive composer): once with
``starters_per_source=0`` and once with the default, then asks every listed starter through
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
from pathlib import Path

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
    "federalist": "federalist/federalist.html",
    "catechism": "baltimore-catechism/catechism.txt",
    "constitution": "us-constitution/constitution.txt",
}


def ingest(
    collection: str, files: list[Path], root: Path, per_source: int, retrieval: str
) -> tuple[float, float, Settings]:
    """Wall and CPU seconds of ingesting ``files`` into a fresh data directory."""
    settings = Settings(
        data_dir=Path(tempfile.mkdtemp(prefix="starters-bench-")),
        bootstrap_docs=False,
        starters_per_source=per_source,
        retrieval=retrieval,  # type: ignore[arg-type]
    )
    ingestor = Ingestor(get_retriever(settings), get_storage(settings), starter_proposer(settings))
    get_retriever(settings).count()  # opens the index outside the timing
    wall, cpu = time.perf_counter(), time.process_time()
    report = ingestor.ingest(files, collection=collection, root=root)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    if report.failed:
        raise SystemExit(f"{collection}: {report.failed}")
    return wall, cpu, settings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpora", type=Path, default=REPO.parent / "shared/data/corpora")
    parser.add_argument("--retrieval", choices=["embedded", "keyword"], default="embedded")
    args = parser.parse_args()
    rows = []
    sets = {c: ([args.corpora / name], (args.corpora / name).parent) for c, name in CORPORA.items()}
    sets["docs"] = (doc_files(REPO), REPO)
    for collection, (files, root) in sets.items():
        name = ", ".join(f.name for f in files) if len(files) < 3 else f"{len(files)} files"
        plain = ingest(collection, files, root, 0, args.retrieval)[:2]
        *proposing, settings = ingest(collection, files, root, 3, args.retrieval)
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
        rows.append((collection, plain, proposing, len(starters)))
    print(f"\nretrieval: {args.retrieval}; seconds, wall (CPU)\n")
    print("| corpus | ingest | with starters | overhead | overhead % (CPU) | starters |")
    print("|---|---:|---:|---:|---:|---:|")
    for collection, (wall, cpu), (wall_p, cpu_p), count in rows:
        print(
            f"| {collection} | {wall:.2f} ({cpu:.2f}) | {wall_p:.2f} ({cpu_p:.2f}) "
            f"| {wall_p - wall:.2f} ({cpu_p - cpu:.2f}) | {100 * (cpu_p - cpu) / cpu:.0f} "
            f"| {count} |"
        )


if __name__ == "__main__":
    main()
