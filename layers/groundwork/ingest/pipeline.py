"""Files → documents → cards in the index; one source per file, stable ids, update in place."""

from __future__ import annotations

import errno
import hashlib
import logging
import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from groundwork.domain.cards import Card
from groundwork.domain.links import relative_link, safe_link
from groundwork.ingest.document import passage_tags
from groundwork.ingest.language import card_languages
from groundwork.retrieval.base import IndexEmbedderMismatch, IndexReindexing
from groundwork.storage.base import SourceRecord

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from groundwork.ingest.document import Document
    from groundwork.retrieval.base import Retriever
    from groundwork.starters.proposer import StarterProposer
    from groundwork.storage.base import Storage

logger = logging.getLogger(__name__)

SUFFIXES = (
    ".md", ".markdown", ".rst", ".rest", ".txt", ".html", ".htm", ".xhtml", ".pdf", ".docx",
    ".pptx", ".epub", ".jsonl",
)  # fmt: skip
#: Part of every source's content hash: a new version of the parsers (what cards hold, where
#: they point) makes every file changed, so the next ingest reads it again.
PARSER_VERSION = "11"
#: Document fields a caller may set for a whole batch (``groundwork ingest --title …``).
METADATA = ("title", "author", "year", "url", "language", "period_start", "period_end")
_CHARSET = re.compile(rb"""<meta[^>]+charset=["']?([\w-]+)""", re.I)
#: The default of ``GROUNDWORK_INGEST_MAX_FILE_BYTES``: a bigger file is refused.
MAX_FILE_BYTES = 25 * 1024 * 1024


def parse(suffix: str, raw: bytes) -> Document:
    """The document in ``raw``, read by the parser for ``suffix``; ValueError when unreadable."""
    suffix = suffix.lower()
    if suffix == ".pdf":
        from groundwork.ingest.pdf import parse_pdf

        return parse_pdf(raw)
    if suffix == ".docx":
        from groundwork.ingest.docx import parse_docx

        return parse_docx(raw)
    if suffix == ".pptx":
        from groundwork.ingest.pptx import parse_pptx

        return parse_pptx(raw)
    if suffix == ".epub":
        from groundwork.ingest.epub import parse_epub

        return parse_epub(raw)
    if suffix in (".rst", ".rest"):
        from groundwork.ingest.rst import parse_rst

        return parse_rst(_decode(raw, "utf-8"))
    if suffix in (".html", ".htm", ".xhtml"):
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
    raise ValueError(f"{unsupported(suffix)}; Groundwork reads {', '.join(SUFFIXES)}")


def unsupported(suffix: str) -> str:
    """Why a file of this suffix is not read: "unsupported type .heic"."""
    return f"unsupported type {suffix.lower()}" if suffix else "unsupported type (no suffix)"


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
    #: Each failed file (as :func:`shown`) and why.
    failed: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class SourceProblem:
    """What ``groundwork ingest --check`` finds wrong with a source of a collection."""

    source_id: str
    location: str | None  # None: the index holds cards of a source nobody recorded
    problem: str


def shown(path: Path | str) -> str:
    """A path as it can be printed: bytes of its name that are not UTF-8 as ``\\xNN``."""
    return str(path).encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


@dataclass
class Discovery:
    """What a path holds for ingesting: the files a parser reads, in a stable order, the
    files of other types (by path, with why), and the folders left out (with why)."""

    files: list[Path] = field(default_factory=list)
    unsupported: dict[str, str] = field(default_factory=dict)
    folders: dict[str, str] = field(default_factory=dict)


def discover(path: Path) -> Discovery:
    """The files under ``path`` (or ``path`` itself), sorted by what happens to them.

    Hidden files and folders (``.git``, ``.DS_Store``) are not looked at. Links to folders
    are not followed (their reasons: a loop, outside the folder, or a folder whose files are
    found where it is). Links to files are listed: the ingestor refuses those that loop, are
    broken or lead outside the folder, with the reason.
    """
    if not path.is_dir():
        if path.suffix.lower() in SUFFIXES:
            return Discovery(files=[path])
        return Discovery(unsupported={str(path): unsupported(path.suffix)})
    found = Discovery()
    root = path.resolve()
    for folder, folders, names in os.walk(path):
        here = Path(folder)
        folders[:] = sorted(name for name in folders if not name.startswith("."))
        for name in folders:
            if (here / name).is_symlink():
                found.folders[str(here / name)] = _folder_link(here / name, root)
        for name in names:
            suffix = Path(name).suffix.lower()
            if name.startswith("."):
                continue
            if suffix in SUFFIXES:
                found.files.append(here / name)
            else:
                found.unsupported[str(here / name)] = unsupported(suffix)
    found.files.sort()
    found.unsupported = dict(sorted(found.unsupported.items()))
    return found


def _folder_link(link: Path, root: Path) -> str:
    target = link.resolve()
    if link.parent.resolve().is_relative_to(target):
        return "a symlink loop (it links to a folder that holds it)"
    if not target.is_relative_to(root):
        return f"a symlink leading outside the folder ingested, to {target}; not followed"
    return f"a link to {target}, a folder inside the one ingested: its files are ingested there"


def _read_checked(file: Path, root: Path, limit: int) -> bytes:
    """The file's bytes; ValueError for a link that loops, is broken or leads outside ``root``,
    for what is not a regular file, and for a file over ``limit`` bytes."""
    if file.is_symlink():
        try:
            target = file.resolve(strict=True)
        except RuntimeError as error:  # Python < 3.13 reports a loop this way
            raise ValueError("a symlink loop") from error
        except OSError as error:
            if error.errno == errno.ELOOP:
                raise ValueError("a symlink loop") from error
            raise ValueError(f"a broken symlink, to {os.readlink(file)}") from error
        if not target.is_relative_to(root.resolve()):
            raise ValueError(f"a symlink leading outside the folder ingested, to {target}")
    # Non-blocking: a FIFO named like a document would block open() until someone wrote to it.
    descriptor = os.open(file, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    with os.fdopen(descriptor, "rb") as handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            raise ValueError("not a regular file")
        raw = handle.read(limit + 1)
    if len(raw) > limit:
        raise ValueError(
            f"bigger than {limit:,} bytes, the limit (GROUNDWORK_INGEST_MAX_FILE_BYTES)"
        )
    return raw


def title_from_name(file: Path) -> str:
    """A document that names no title is called by its file's name: "leave-policy.md" is
    "Leave policy"."""
    words = re.sub(r"[-_.]+", " ", file.stem).strip()
    return words[:1].upper() + words[1:] if words else file.name


def source_id(collection: str, location: str) -> str:
    return hashlib.sha256(f"{collection}\0{location}".encode()).hexdigest()[:16]


def location_of(file: Path, root: Path) -> str:
    """Where a file is, as stored: relative to the folder ingested, so ids survive a move.
    ValueError when its name is not UTF-8: no store, id or citation can hold it."""
    location = file.relative_to(root).as_posix() if file.is_relative_to(root) else file.name
    try:
        location.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError(f"its name is not UTF-8 ({shown(location)}): rename the file") from None
    return location


def possible_ids(collection: str, path: PurePosixPath) -> set[str]:
    """The source ids a file at ``path`` may have had: its location was relative to the folder
    ingested, any of the folders above it."""
    parts = path.parts
    return {
        source_id(collection, PurePosixPath(*parts[i:]).as_posix())
        for i in range(len(parts))
        if parts[i] != "/"
    }


class Ingestor:
    def __init__(
        self,
        retriever: Retriever,
        storage: Storage,
        starters: StarterProposer | None = None,
        *,
        max_file_bytes: int = MAX_FILE_BYTES,
    ) -> None:
        self._retriever = retriever
        self._storage = storage
        self._starters = starters
        self._max_file_bytes = max_file_bytes

    def ingest(
        self,
        files: Iterable[Path],
        *,
        collection: str,
        root: Path,
        tags: list[str] | None = None,
        metadata: dict[str, str] | None = None,
        on_file: Callable[[Path], object] | None = None,
        on_cards: Callable[[Path, int, int], object] | None = None,
    ) -> IngestReport:
        """Index ``files``; a file that cannot be read is reported and the others go on.

        ``on_file`` is called when a file is done; ``on_cards(file, ready, total)`` while its
        passages are made ready, so that a large file shows progress of its own.
        """
        report = IngestReport()
        indexed = _Indexed(self._retriever, collection)
        for file in files:
            try:
                self._ingest_file(
                    file, collection, root, tags or [], metadata or {}, report, indexed, on_cards
                )
            except (IndexEmbedderMismatch, IndexReindexing):
                raise  # the index's state, not the file's: no other file can be written either
            # Parsers raise what their libraries raise (pypdf has its own errors): any failure
            # of one file is that file's failure, reported with its reason.
            except Exception as error:
                report.failed[shown(file)] = f"{type(error).__name__}: {error}"
            if on_file:
                on_file(file)
        return report

    def delete(self, path: Path, *, collection: str) -> IngestReport:
        """Remove the sources ``path`` names: the file (present or not) or a folder's files.

        The index is asked too: cards of a source that was never recorded (an ingest of an
        older version killed between its two writes) are removed when ``path`` names their
        file. A source's cards go before its record, so a kill in between leaves a record
        that the next ``--delete`` (or ingest) still finds.
        """
        wanted = PurePosixPath(path.resolve().as_posix() if path.exists() else path.as_posix())
        report = IngestReport()
        recorded = set()
        for source in self._storage.list_sources(collection):
            recorded.add(source.id)
            location = PurePosixPath(source.location)
            if wanted.parts[-len(location.parts) :] == location.parts or (
                path.is_dir() and (path / source.location).is_file()
            ):
                report.cards += self._retriever.delete_source(source.id)
                if self._starters:
                    self._starters.forget(collection, source.id)
                self._storage.delete_source(source.id)
                report.deleted += 1
        unrecorded = set(self._retriever.source_cards(collection)) - recorded
        if unrecorded:
            files = discover(path).files if path.is_dir() else [path]
            named = set().union(
                *(possible_ids(collection, PurePosixPath(f.resolve().as_posix())) for f in files)
            )
            for sid in sorted(unrecorded & (named | possible_ids(collection, wanted))):
                report.cards += self._retriever.delete_source(sid)
                report.deleted += 1
        return report

    def check(self, collection: str) -> list[SourceProblem]:
        """Sources whose passages the index does not hold as recorded, interrupted ingests,
        and cards of sources nobody recorded. Ingesting the files again repairs the first
        two (a source whose cards are missing is ingested again even when unchanged)."""
        indexed = self._retriever.source_cards(collection)
        problems = []
        for source in sorted(self._storage.list_sources(collection), key=lambda s: s.location):
            held = indexed.pop(source.id, 0)
            if not source.content_hash:
                problem = "its last ingest did not finish: ingest it again"
            elif held != source.cards:
                problem = (
                    f"the index holds {held:,} of its {source.cards:,} passages: ingest it again"
                )
            else:
                continue
            problems.append(SourceProblem(source.id, source.location, problem))
        for sid, held in sorted(indexed.items()):
            problem = (
                f"{held:,} passages of a source with no record: "
                "`groundwork ingest PATH --delete` with the file's PATH removes them"
            )
            problems.append(SourceProblem(sid, None, problem))
        return problems

    def _ingest_file(
        self,
        file: Path,
        collection: str,
        root: Path,
        tags: list[str],
        metadata: dict[str, str],
        report: IngestReport,
        indexed: _Indexed,
        on_cards: Callable[[Path, int, int], object] | None = None,
    ) -> None:
        location = location_of(file, root)
        raw = _read_checked(file, root, self._max_file_bytes)
        settings = repr((PARSER_VERSION, sorted(tags), sorted(metadata.items()))).encode()
        digest = hashlib.sha256(raw + settings).hexdigest()
        sid = source_id(collection, location)
        existing = self._storage.get_source(sid)
        # Unchanged only if the index still holds it as recorded: a wiped or new index gets
        # the source's cards back.
        if existing and existing.content_hash == digest and indexed.cards(sid) == existing.cards:
            report.unchanged += 1
            return
        document = parse(file.suffix, raw)
        document.title = document.title or title_from_name(file)
        for key, value in metadata.items():
            setattr(document, key, value)
        if not document.passages:
            raise ValueError("no text found")
        cards = cards_of(document, collection, sid, location, tags)
        done = SourceRecord(
            id=sid,
            collection=collection,
            title=document.title,
            location=location,
            content_hash=digest,
            cards=len(cards),
        )
        # The record is written before the index and finished after it: until then it knows no
        # content, so if the process dies (or the disk fills) in between, the source is still
        # listed, `--delete` still removes what the index holds of it, and the next run ingests
        # it again whatever it holds. Never cards without a record.
        self._storage.put_source((existing or done).model_copy(update={"content_hash": ""}))

        # Embeds first, then swaps: the old version stays searchable until the new one is in.
        def progress(ready: int) -> None:
            if on_cards:
                on_cards(file, ready, len(cards))

        try:
            self._retriever.replace_source(sid, cards, progress=progress)
            # Proposed once the cards are searchable, and before the source is finished: a
            # file whose proposing failed is not "unchanged" on the next run.
            if self._starters:
                self._starters.propose(document, collection, sid, tags=tags)
            self._storage.put_source(done)
        except BaseException:
            if existing is None:
                self._undo(collection, sid)
            raise
        report.cards += len(cards)
        if existing:
            report.updated += 1
        else:
            report.added += 1

    def _undo(self, collection: str, sid: str) -> None:
        """Take back a first ingest that failed midway, as far as the backends let: what
        cannot be taken back stays recorded, unfinished, for ``--delete`` and the next run."""
        try:
            self._retriever.delete_source(sid)
            if self._starters:
                self._starters.forget(collection, sid)
            self._storage.delete_source(sid)
        except Exception as error:
            logger.warning("source %s left unfinished: %s", sid, error)


class _Indexed:
    """How many cards the index holds per source of a collection, asked once per batch and
    only when a file's content is unchanged (a first ingest needs no answer)."""

    def __init__(self, retriever: Retriever, collection: str) -> None:
        self._retriever = retriever
        self._collection = collection
        self._counts: dict[str, int] | None = None

    def cards(self, sid: str) -> int:
        if self._counts is None:
            self._counts = self._retriever.source_cards(self._collection)
        return self._counts.get(sid, 0)


def cards_of(
    document: Document, collection: str, sid: str, location: str, tags: list[str]
) -> list[Card]:
    """A document's passages as cards; a passage's own metadata wins over its document's.

    A URL that is neither http(s) nor relative (``javascript:``…) is not kept: the card links
    to its file instead (see ``domain/links.py``).
    """
    cards = []
    languages = card_languages(document)
    for i, (passage, language) in enumerate(zip(document.passages, languages, strict=True)):
        base = safe_link(passage.url) or safe_link(document.url) or relative_link(location)
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
                tags=passage_tags(document, passage, tags),
                language=language,
                period_start=passage.period_start or document.period_start,
                period_end=passage.period_end or document.period_end,
                position=i,
                char_start=passage.start,
                char_end=passage.end,
                page=passage.page,
                page_end=passage.page_end,
            )
        )
    return cards
