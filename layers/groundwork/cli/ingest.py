"""``groundwork ingest PATH --collection NAME``: index documents, with a progress bar."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import argparse


def register(commands: argparse._SubParsersAction[Any]) -> None:
    parser = commands.add_parser("ingest", help="index a file or a folder of documents")
    parser.add_argument("path", type=Path, help="a file, or a folder searched recursively")
    parser.add_argument("--collection", required=True, help="the collection to add them to")
    parser.add_argument("--tags", nargs="*", default=[], help="tags given to every document")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from groundwork.ingest.pipeline import Ingestor, discover
    from groundwork.retrieval.factory import get_retriever
    from groundwork.storage.factory import get_storage

    path: Path = args.path
    if not path.exists():
        print(f"groundwork ingest: {path} does not exist", file=sys.stderr)
        return 2
    files = discover(path)
    root = path if path.is_dir() else path.parent
    ingestor = Ingestor(get_retriever(), get_storage())
    with tqdm(total=len(files), unit="file", desc="ingesting") as bar:
        report = ingestor.ingest(
            files,
            collection=args.collection,
            root=root,
            tags=args.tags,
            on_file=lambda _: bar.update(1),
        )
    print(
        f"{len(files)} files: {report.added} added, {report.updated} updated, "
        f"{report.unchanged} unchanged, {len(report.failed)} failed; "
        f"{report.cards} passages indexed"
    )
    for file, reason in report.failed.items():
        print(f"  failed: {file}: {reason}", file=sys.stderr)
    return 1 if report.failed else 0
