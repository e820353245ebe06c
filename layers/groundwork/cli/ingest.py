"""``groundwork ingest PATH --collection NAME``: index documents, with a progress bar.

``--delete`` removes the documents PATH names instead (the file need not exist any more).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import argparse

    from groundwork.ingest.pipeline import Ingestor


def register(commands: argparse._SubParsersAction[Any]) -> None:
    parser = commands.add_parser("ingest", help="index a file or a folder of documents")
    parser.add_argument("path", type=Path, help="a file, or a folder searched recursively")
    parser.add_argument("--collection", required=True, help="the collection to add them to")
    parser.add_argument("--tags", nargs="*", default=[], help="tags given to every document")
    parser.add_argument(
        "--delete", action="store_true", help="remove the documents PATH names from the collection"
    )
    for field in ("title", "author", "year", "url"):
        parser.add_argument(f"--{field}", help=f"the documents' {field}, replacing what they say")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from groundwork.ingest.pipeline import Ingestor
    from groundwork.retrieval.factory import get_retriever
    from groundwork.settings import get_settings
    from groundwork.starters.factory import starter_proposer
    from groundwork.storage.factory import get_storage

    path: Path = args.path
    settings = get_settings()
    ingestor = Ingestor(get_retriever(settings), get_storage(settings), starter_proposer(settings))
    if args.delete:
        report = ingestor.delete(path, collection=args.collection)
        print(f"{report.deleted} documents deleted; {report.cards} passages removed")
        return 0 if report.deleted else 1
    if not path.exists():
        print(f"groundwork ingest: {path} does not exist", file=sys.stderr)
        return 2
    return _ingest(ingestor, path, args)


def _ingest(ingestor: Ingestor, path: Path, args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from groundwork.ingest.pipeline import discover

    files = discover(path)
    root = path if path.is_dir() else path.parent
    metadata = {f: getattr(args, f) for f in ("title", "author", "year", "url") if getattr(args, f)}
    with tqdm(total=len(files), unit="file", desc="ingesting") as bar:

        def advance(file: Path) -> None:
            bar.set_postfix_str(file.name[-30:])
            bar.update(1)

        report = ingestor.ingest(
            files,
            collection=args.collection,
            root=root,
            tags=args.tags,
            metadata=metadata,
            on_file=advance,
        )
    print(
        f"{len(files)} files: {report.added} added, {report.updated} updated, "
        f"{report.unchanged} unchanged, {len(report.failed)} failed; "
        f"{report.cards} passages indexed"
    )
    for file, reason in report.failed.items():
        print(f"  failed: {file}: {reason}", file=sys.stderr)
    return 1 if report.failed else 0
