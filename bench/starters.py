"""Starters proposed at ingest over the shipped corpora: what they are, whether each is
answered with a citation, and what proposing adds to the ingest time.

Ingests each corpus into its own collection twice, in fresh data directories, with the
embedded defaults (SQLite, hybrid MiniLM retrieval, the extractive composer): once with
``starters_per_source=0`` and once with the default, then asks every listed starter through
the answer pipeline again. Prints one table per corpus and a summary of the ingest times.

    .venv/bin/python -m bench.starters [--corpora ../shared/data/corpora]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from groundwork.answer.service import AnswerOptions
from groundwork.generation.base import Turn
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


def ingest(root: Path, collection: str, file: Path, per_source: int) -> tuple[float, Settings]:
    settings = Settings(
        data_dir=Path(tempfile.mkdtemp(prefix="starters-bench-")),
        bootstrap_docs=False,
        starters_per_source=per_source,
    )
    ingestor = Ingestor(get_retriever(settings), get_storage(settings), starter_proposer(settings))
    get_retriever(settings).count()  # loads the model outside the timing
    start = time.perf_counter()
    report = ingestor.ingest([file], collection=collection, root=file.parent)
    elapsed = time.perf_counter() - start
    if report.failed:
        raise SystemExit(f"{file}: {report.failed}")
    return elapsed, settings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpora", type=Path, default=REPO.parent / "shared/data/corpora")
    args = parser.parse_args()
    rows = []
    for collection, name in CORPORA.items():
        file = args.corpora / name
        plain, _ = ingest(args.corpora, collection, file, 0)
        proposing, settings = ingest(args.corpora, collection, file, 3)
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
    print("\n| corpus | ingest s | with starters s | overhead s | overhead % | starters |")
    print("|---|---:|---:|---:|---:|---:|")
    for collection, plain, proposing, count in rows:
        extra = proposing - plain
        print(
            f"| {collection} | {plain:.2f} | {proposing:.2f} | {extra:.2f} "
            f"| {100 * extra / plain:.0f} | {count} |"
        )


if __name__ == "__main__":
    main()
