"""Files → documents → cards in the index; one source per file, stable ids, update in place."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from groundwork.domain.cards import Card
from groundwork.ingest.language import card_languages
from groundwork.storage.base import SourceRecord

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from groundwork.ingest.document import Document
    from groundwork.retrieval.base import Retriever
    from groundwork.storage.base import Storage

SUFFIXES = (".md", ".markdown", ".txt", ".html", ".htm", ".pdf", ".jsonl")
#: Document fields a caller may set for a whole batch (``groundwork ingest --title …``).
METADATA = ("title", "author", "year", "url", "language", "period_start", "period_end")
_CHARSET = re.compile(rb"""<meta[^>]+charset=["']?([\w-]+)""", re.I)


def parse(suffix: str, raw: bytes) -> Document:
    """The document in ``raw``, read by the parser for ``suffix``; ValueError when unreadable."""
    suffix = suffix.lower()
    if suffix == ".pdf":
        from groundwork.ingest.pdf import parse_pdf

        return parse_pdf(raw)
    if suffix in (".html", ".htm"):
        from groundwork.ingest.html import parse_html

        declared = _CHARSET.search(raw[:4096])
        return parse_html(_decode(raw, declared.group(1).decode() if declared else "utf-8"))
    if suffix in (".md", ".markdown"):
        from groundwork.ingest.markdown import parse_markdown

        return parse_markdown(_decode(raw, "utf-8"))
    if suffix == ".txt":
        from groundwork.ingest.plaintext import parse_text

        return parse_text(_decode(raw, "utf-8"))
    if suffix == ".jsonl":
        from groundwork.ingest.jsonl import parse_jsonl

        return parse_jsonl(_decode(raw, "utf-8"))
    raise ValueError(f"no parser for {suffix or 'files without a suffix'}")


def _decode(raw: bytes, encoding: str) -> str:
    if b"\0" in raw[:8192]:
        raise ValueError("binary content in a text file")
    try:
        return raw.decode("utf-8-sig" if encoding.lower() in ("utf-8", "utf8") else encoding)
    except LookupError:
        return raw.decode("utf-8-sig")


@dataclass
class IngestReport:
    added: int = 0
    updated: int = 0
    unchanged: int = 0
    deleted: int = 0
    cards: int = 0
    failed: dict[str, str] = field(default_factory=dict)


def discover(path: Path) -> list[Path]:
    """The files under ``path`` that a parser reads, in a stable order."""
    if path.is_file():
        return [path]
    return sorted(p for p in path.rglob("*") if p.is_file() and p.suffix.lower() in SUFFIXES)


def source_id(collection: str, location: str) -> str:
    return hashlib.sha256(f"{collection}\0{location}".encode()).hexdigest()[:16]


def location_of(file: Path, root: Path) -> str:
    """Where a file is, as stored: relative to the folder ingested, so ids survive a move."""
    return file.relative_to(root).as_posix() if file.is_relative_to(root) else file.name


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
        metadata: dict[str, str] | None = None,
        on_file: Callable[[Path], object] | None = None,
    ) -> IngestReport:
        """Index ``files``; a file that cannot be read is reported and the others go on."""
        report = IngestReport()
        for file in files:
            try:
                self._ingest_file(file, collection, root, tags or [], metadata or {}, report)
            # Parsers raise what their libraries raise (pypdf has its own errors): any failure
            # of one file is that file's failure, reported with its reason.
            except Exception as error:
                report.failed[str(file)] = f"{type(error).__name__}: {error}"
            if on_file:
                on_file(file)
        return report

    def delete(self, path: Path, *, collection: str) -> IngestReport:
        """Remove the sources ``path`` names: the file (present or not) or a folder's files."""
        wanted = PurePosixPath(path.resolve().as_posix() if path.exists() else path.as_posix())
        report = IngestReport()
        for source in self._storage.list_sources(collection):
            location = PurePosixPath(source.location)
            if wanted.parts[-len(location.parts) :] == location.parts or (
                path.is_dir() and (path / source.location).is_file()
            ):
                report.cards += self._retriever.delete_source(source.id)
                self._storage.delete_source(source.id)
                report.deleted += 1
        return report

    def _ingest_file(
        self,
        file: Path,
        collection: str,
        root: Path,
        tags: list[str],
        metadata: dict[str, str],
        report: IngestReport,
    ) -> None:
        raw = file.read_bytes()
        settings = repr((sorted(tags), sorted(metadata.items()))).encode()
        digest = hashlib.sha256(raw + settings).hexdigest()
        location = location_of(file, root)
        sid = source_id(collection, location)
        existing = self._storage.get_source(sid)
        if existing and existing.content_hash == digest:
            report.unchanged += 1
            return
        document = parse(file.suffix, raw)
        for key, value in metadata.items():
            setattr(document, key, value)
        if not document.passages:
            raise ValueError("no text found")
        cards = cards_of(document, collection, sid, location, tags)
        self._retriever.replace_source(sid, cards)
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


def cards_of(
    document: Document, collection: str, sid: str, location: str, tags: list[str]
) -> list[Card]:
    """A document's passages as cards; a passage's own metadata wins over its document's."""
    cards = []
    languages = card_languages(document)
    for i, (passage, language) in enumerate(zip(document.passages, languages, strict=True)):
        base = passage.url or document.url or location
        cards.append(
            Card(
                id=f"{sid}-{i:05d}",
                collection=collection,
                source_id=sid,
                text=passage.text,
                heading=passage.heading_path[-1] if passage.heading_path else None,
                heading_path=passage.heading_path,
                reference=passage.reference,
                title=passage.title or document.title,
                author=passage.author or document.author,
                year=passage.year or document.year,
                url=f"{base}#{passage.anchor}" if passage.anchor and "#" not in base else base,
                tags=sorted({*document.tags, *passage.tags, *tags}),
                language=language,
                period_start=passage.period_start or document.period_start,
                period_end=passage.period_end or document.period_end,
                position=i,
            )
        )
    return cards
