"""The default collection: the project's own documentation, so a first run can answer."""

from __future__ import annotations

from typing import TYPE_CHECKING

from groundwork.ingest.pipeline import Ingestor, IngestReport

if TYPE_CHECKING:
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


def ingest_docs_if_empty(
    retriever: Retriever,
    storage: Storage,
    root: Path,
    collection: str,
    starters: StarterProposer | None = None,
) -> IngestReport | None:
    """Ingest ``root``'s README and docs into ``collection`` when it holds no card yet."""
    if retriever.count(collection) > 0:
        return None
    return Ingestor(retriever, storage, starters).ingest(
        doc_files(root), collection=collection, root=root
    )
