"""``groundwork ingest PATH --collection NAME``: index documents, with a progress bar.

``--delete`` removes the documents PATH names instead (the file need not exist any more).
A file of many passages gets a second bar while they are embedded. Files of a type no parser
reads are named and counted; a run that ingests nothing exits 1. ``--text FILE`` prints the
text a file is read as, which citations' ``source_location`` offsets point into. ``--check``
(no PATH) reports the collection's sources whose passages the index lacks.
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import argparse

    from groundwork.ingest.pipeline import Ingestor

#: A file with at least this many passages gets a bar of its own while they are embedded.
INNER_BAR_CARDS = 512


def register(commands: argparse._SubParsersAction[Any]) -> None:
    parser = commands.add_parser("ingest", help="index a file or a folder of documents")
    parser.add_argument(
        "path", type=Path, nargs="?", help="a file, or a folder searched recursively"
    )
    parser.add_argument("--collection", help="the collection to add them to (required)")
    parser.add_argument("--tags", nargs="*", default=[], help="tags given to every document")
    parser.add_argument(
        "--delete", action="store_true", help="remove the documents PATH names from the collection"
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="report the collection's sources whose passages the index does not hold as "
        "recorded (a wiped index, an interrupted ingest); exit status 1 if any",
    )
    parser.add_argument(
        "--text",
        action="store_true",
        help="print the text the file PATH is read as (what source_location offsets count "
        "in), with its passages' offsets, and index nothing",
    )
    for field in ("title", "author", "year", "url", "language"):
        parser.add_argument(f"--{field}", help=f"the documents' {field}, replacing what they say")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from groundwork.ingest.pipeline import Ingestor
    from groundwork.retrieval.factory import get_retriever
    from groundwork.settings import get_settings
    from groundwork.starters.factory import starter_proposer
    from groundwork.storage.factory import get_storage

    path: Path | None = args.path
    if args.text:
        if path is None:
            print("groundwork ingest --text: give the FILE to read", file=sys.stderr)
            return 2
        return _print_text(path)
    if not args.collection:
        print("groundwork ingest: --collection is required", file=sys.stderr)
        return 2
    if (path is None) != bool(args.check):
        print("groundwork ingest: give a PATH, or --check without one", file=sys.stderr)
        return 2
    settings = get_settings()
    retriever = get_retriever(settings)
    ingestor = Ingestor(
        retriever,
        get_storage(settings),
        starter_proposer(settings),
        max_file_bytes=settings.ingest_max_file_bytes,
    )
    if path is None:
        return _check(ingestor, args.collection)
    if args.delete:
        report = ingestor.delete(path, collection=args.collection)
        print(f"{report.deleted} documents deleted; {report.cards} passages removed")
        return 0 if report.deleted else 1
    if not path.exists():
        print(f"groundwork ingest: {path} does not exist", file=sys.stderr)
        return 2
    code = _ingest(ingestor, path, args)
    if retriever.count(args.collection):
        from groundwork.auth.local import grant_local
        from groundwork.storage.factory import get_stores

        # Registered, so that the page lists it, and seen by this computer's local user.
        grant_local(get_stores(settings).accounts, args.collection)
    stale = retriever.unlocated().get(args.collection)
    if stale:
        print(
            f"  note: {stale} passages of {args.collection} were indexed by an older version "
            "and are cited without a source location; ingest their files again to add it",
            file=sys.stderr,
        )
    return code


def _check(ingestor: Ingestor, collection: str) -> int:
    problems = ingestor.check(collection)
    for problem in problems:
        print(f"  {problem.location or problem.source_id}: {problem.problem}")
    print(f"{collection}: {len(problems)} sources with passages missing or unrecorded")
    return 1 if problems else 0


def _ingest(ingestor: Ingestor, path: Path, args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from groundwork.ingest.pipeline import SUFFIXES, discover, shown

    found = discover(path)
    files = found.files
    root = path if path.is_dir() else path.parent
    fields = ("title", "author", "year", "url", "language")
    metadata = {f: getattr(args, f) for f in fields if getattr(args, f)}
    inner: dict[Path, tqdm[Any]] = {}
    with tqdm(total=len(files), unit="file", desc="ingesting") as bar:

        def advance(file: Path) -> None:
            if file in inner:
                inner.pop(file).close()
            bar.set_postfix_str(shown(file.name)[-30:])
            bar.update(1)

        def embedding(file: Path, ready: int, total: int) -> None:
            if total < INNER_BAR_CARDS:
                return
            if file not in inner:
                inner[file] = tqdm(
                    total=total,
                    unit="passage",
                    desc=shown(file.name)[-30:],
                    position=1,
                    leave=False,
                )
            inner[file].update(ready - inner[file].n)

        report = ingestor.ingest(
            files,
            collection=args.collection,
            root=root,
            tags=args.tags,
            metadata=metadata,
            on_file=advance,
            on_cards=embedding,
        )
    summary = (
        f"{len(files)} files: {report.added} added, {report.updated} updated, "
        f"{report.unchanged} unchanged, {len(report.failed)} failed; "
        f"{report.cards} passages indexed"
    )
    if found.unsupported:
        summary += f"; {len(found.unsupported)} skipped: {_kinds(found.unsupported)}"
    print(summary)
    for file, reason in report.failed.items():
        print(f"  failed: {file}: {reason}", file=sys.stderr)
    for skipped, reason in (found.unsupported | found.folders).items():
        print(f"  skipped: {shown(skipped)}: {shown(reason)}", file=sys.stderr)
    if not report.added + report.updated + report.unchanged:
        print(
            f"groundwork ingest: nothing was ingested from {path} "
            f"(Groundwork reads {', '.join(SUFFIXES)})",
            file=sys.stderr,
        )
        return 1
    return 1 if report.failed or found.folders else 0


def _kinds(unsupported: dict[str, str]) -> str:
    """Each reason once, the most common first: "unsupported type .heic (2), …"."""
    counts = Counter(unsupported.values())
    return ", ".join(reason if n == 1 else f"{reason} ({n})" for reason, n in counts.most_common())


def _print_text(path: Path) -> int:
    from groundwork.ingest.pipeline import parse

    if not path.is_file():
        print(f"groundwork ingest --text: {path} is not a file", file=sys.stderr)
        return 2
    try:
        document = parse(path.suffix, path.read_bytes())
    except ValueError as error:
        print(f"groundwork ingest --text: {path}: {error}", file=sys.stderr)
        return 1
    print(document.text)
    for n, passage in enumerate(document.passages):
        where = f"p. {passage.page}" if passage.page else " › ".join(passage.heading_path)
        print(f"passage {n}: characters {passage.start}–{passage.end} {where}", file=sys.stderr)
    return 0
