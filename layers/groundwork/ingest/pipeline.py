"""Files → documents → cards in the index; one source per file, stable ids, update in place."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from groundwork.domain.cards import Card
from groundwork.ingest.markdown import parse_markdown
from groundwork.ingest.plaintext import parse_text
from groundwork.storage.base import SourceRecord

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from pathlib import Path

    from groundwork.ingest.document import Document
    from groundwork.retrieval.base import Retriever
    from groundwork.storage.base import Storage

PARSERS: dict[str, Callable[[str], Document]] = {
    ".md": parse_markdown,
    ".markdown": parse_markdown,
    ".txt": parse_text,
}


@dataclass
class IngestReport:
    added: int = 0
    updated: int = 0
    unchanged: int = 0
    cards: int = 0
    failed: dict[str, str] = field(default_factory=dict)


def discover(path: Path) -> list[Path]:
    """The files under ``path`` that a parser reads, in a stable order."""
    if path.is_file():
        return [path]
    return sorted(p for p in path.rglob("*") if p.is_file() and p.suffix.lower() in PARSERS)


def source_id(collection: str, location: str) -> str:
    return hashlib.sha256(f"{collection}\0{location}".encode()).hexdigest()[:16]


class Ingestor:
    def __init__(self, retriever: Retriever, storage: Storage) -> None:
        self._retriever = retriever
        self._storage = storage

    def ingest(
        self,
        files: Iterable[Path],
        *,
        collection: str,
        root: Path,
        tags: list[str] | None = None,
        on_file: Callable[[Path], object] | None = None,
    ) -> IngestReport:
        """Index ``files``; a file that cannot be read is reported and the others go on."""
        report = IngestReport()
        for file in files:
            try:
                self._ingest_file(file, collection, root, tags or [], report)
            except (OSError, UnicodeDecodeError, ValueError) as error:
                report.failed[str(file)] = f"{type(error).__name__}: {error}"
            if on_file:
                on_file(file)
        return report

    def _ingest_file(
        self, file: Path, collection: str, root: Path, tags: list[str], report: IngestReport
    ) -> None:
        parser = PARSERS.get(file.suffix.lower())
        if parser is None:
            raise ValueError(f"no parser for {file.suffix or 'files without a suffix'}")
        raw = file.read_bytes()
        digest = hashlib.sha256(raw + repr(sorted(tags)).encode()).hexdigest()
        location = file.relative_to(root).as_posix() if file.is_relative_to(root) else file.name
        sid = source_id(collection, location)
        existing = self._storage.get_source(sid)
        if existing and existing.content_hash == digest:
            report.unchanged += 1
            return
        document = parser(raw.decode("utf-8"))
        cards = self._cards(document, collection, sid, location, tags)
        self._retriever.delete_source(sid)
        self._retriever.upsert(cards)
        self._storage.put_source(
            SourceRecord(
                id=sid,
                collection=collection,
                title=document.title,
                location=location,
                content_hash=digest,
                cards=len(cards),
            )
        )
        report.cards += len(cards)
        if existing:
            report.updated += 1
        else:
            report.added += 1

    @staticmethod
    def _cards(
        document: Document, collection: str, sid: str, location: str, tags: list[str]
    ) -> list[Card]:
        base = document.url or location
        return [
            Card(
                id=f"{sid}-{i:05d}",
                collection=collection,
                source_id=sid,
                text=passage.text,
                heading=passage.heading_path[-1] if passage.heading_path else None,
                heading_path=passage.heading_path,
                reference=passage.reference,
                title=document.title,
                author=document.author,
                year=document.year,
                url=f"{base}#{passage.anchor}" if passage.anchor else base,
                tags=sorted({*document.tags, *tags}),
                language=document.language,
                position=i,
            )
            for i, passage in enumerate(document.passages)
        ]
