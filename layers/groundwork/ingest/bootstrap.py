"""The default collection: the project's own documentation, so a first run can answer.

It is indexed on start when it is empty, and again when its cards were written by an older
version (they have no source locations): unchanged files are skipped, so that costs a
hash per file. Each document indexed is said on stderr as it is done, since the first start
embeds a few hundred passages (tens of seconds on a laptop).
"""

from __future__ import annotations

import sys
import time
from typing import TYPE_CHECKING

from groundwork.ingest.pipeline import Ingestor, IngestReport

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
) -> IngestReport | None:
    """Index ``root``'s README and docs into ``collection`` when it holds no card yet, or
    cards without a source location; None when there was nothing to do. ``say`` (default:
    a line on stderr) hears what is indexed, file by file."""
    empty = retriever.count(collection) == 0
    if not empty and not retriever.unlocated().get(collection):
        return None
    say = say or _stderr
    files = doc_files(root)
    why = "first start" if empty else "indexed by an older version, without source locations"
    say(f"indexing {len(files)} documents of {root} into `{collection}` ({why})")
    passages: dict[Path, int] = {}
    done = 0
    began = time.monotonic()

    def finished(file: Path) -> None:
        nonlocal done
        done += 1
        count = f"{passages[file]} passages" if file in passages else "unchanged"
        say(f"  [{done}/{len(files)}] {file.relative_to(root)}: {count}")

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


def _stderr(line: str) -> None:
    print(f"groundwork: {line}", file=sys.stderr, flush=True)
