"""The default collection: the project's own documentation, so a first run can answer.

It is indexed on start when it is empty, when a start stopped before it had indexed every
document (the first one takes minutes, and a user may stop it), and again when its cards were
written by an older version (they have no source locations): unchanged files are skipped, so
that costs a hash per file. Each document indexed is said on stderr as it is done, since the
first start embeds a few hundred passages and their sentences (minutes on a laptop).
"""

from __future__ import annotations

import sys
import time
from typing import TYPE_CHECKING

from groundwork.ingest.pipeline import Ingestor, IngestReport, location_of, source_id

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from groundwork.retrieval.base import Retriever
    from groundwork.starters.proposer import StarterProposer
    from groundwork.storage.base import Storage


def doc_files(root: Path) -> list[Path]:
    files = [root / "README.md"] if (root / "README.md").is_file() else []
    docs = root / "docs"
    if docs.is_dir():
        files += sorted(docs.rglob("*.md"))
    return files


def ingest_docs(
    retriever: Retriever,
    storage: Storage,
    root: Path,
    collection: str,
    starters: StarterProposer | None = None,
    *,
    say: Callable[[str], object] | None = None,
    progress: Callable[[int, int], object] | None = None,
) -> IngestReport | None:
    """Index ``root``'s README and docs into ``collection`` when it holds no card yet, misses
    some of them, or holds cards without a source location; None when there was nothing to
    do. ``say`` (default: a line on stderr) hears what is indexed, file by file; ``progress``
    hears how many of how many files are done, 0 first."""
    why = pending(retriever, storage, root, collection)
    if why is None:
        return None
    say = say or _stderr
    files = doc_files(root)
    say(f"indexing {len(files)} documents of {root} into `{collection}` ({why})")
    if progress:
        progress(0, len(files))
    passages: dict[Path, int] = {}
    done = 0
    began = time.monotonic()

    def finished(file: Path) -> None:
        nonlocal done
        done += 1
        count = f"{passages[file]} passages" if file in passages else "unchanged"
        say(f"  [{done}/{len(files)}] {file.relative_to(root)}: {count}")
        if progress:
            progress(done, len(files))

    report = Ingestor(retriever, storage, starters).ingest(
        files,
        collection=collection,
        root=root,
        on_file=finished,
        on_cards=lambda file, _ready, total: passages.__setitem__(file, total),
    )
    say(
        f"indexed {report.added + report.updated} documents ({report.cards} passages) in "
        f"{time.monotonic() - began:.0f} s"
        + (f"; {len(report.failed)} failed: {', '.join(report.failed)}" if report.failed else "")
    )
    return report


def pending(retriever: Retriever, storage: Storage, root: Path, collection: str) -> str | None:
    """Why ``collection`` needs ``root``'s docs indexed, or None when they all are."""
    if retriever.count(collection) == 0:
        return "first start"
    if retriever.unlocated().get(collection):
        return "indexed by an older version, without source locations"
    unfinished = _unfinished(storage, doc_files(root), root, collection)
    if unfinished:
        return f"{unfinished} not indexed yet: a start stopped before it was done"
    return None


def _unfinished(storage: Storage, files: list[Path], root: Path, collection: str) -> int:
    """How many of ``files`` have no finished source in ``collection``: never ingested, or
    ingested by a start that was stopped midway (a record is finished last)."""
    done = {source.id for source in storage.list_sources(collection) if source.content_hash}
    return sum(source_id(collection, location_of(file, root)) not in done for file in files)


def _stderr(line: str) -> None:
    print(f"groundwork: {line}", file=sys.stderr, flush=True)
