"""Zip packages of XML (Word, PowerPoint, EPUB), read with the standard library.

A part is read whole only up to :data:`MAX_PART_BYTES` once inflated, so a small zip that
inflates to gigabytes (a zip bomb) is refused rather than read. The XML parser is expat,
which resolves no external entity and, from expat 2.4.1 on, refuses entity expansion attacks
("billion laughs").
"""

from __future__ import annotations

import io
import re
import zipfile
from typing import TYPE_CHECKING

from groundwork.ingest.document import Document, year_in

if TYPE_CHECKING:
    from xml.etree.ElementTree import Element

#: The largest part read, inflated: a document's text is far smaller.
MAX_PART_BYTES = 64 * 1024 * 1024

_DC = "{http://purl.org/dc/elements/1.1/}"
_DCTERMS = "{http://purl.org/dc/terms/}"


class Package:
    """The parts of one zip package, by name."""

    def __init__(self, raw: bytes) -> None:
        try:
            self._zip = zipfile.ZipFile(io.BytesIO(raw))
        except zipfile.BadZipFile as error:
            raise ValueError(f"not a zip package ({error})") from None
        self.names = set(self._zip.namelist())

    def read(self, name: str) -> bytes:
        if name not in self.names:
            raise ValueError(f"the package has no {name}")
        with self._zip.open(name) as part:
            data = part.read(MAX_PART_BYTES + 1)
        if len(data) > MAX_PART_BYTES:
            raise ValueError(f"{name} inflates beyond {MAX_PART_BYTES:,} bytes")
        return data

    def xml(self, name: str) -> Element:
        from xml.etree.ElementTree import ParseError, fromstring

        try:
            return fromstring(self.read(name))
        except ParseError as error:
            raise ValueError(f"{name} is not well-formed XML ({error})") from None


def core_properties(package: Package, name: str = "docProps/core.xml") -> Document:
    """A document with the title, author, year and language of Office's core properties."""
    if name not in package.names:
        return Document()
    root = package.xml(name)

    def field(tag: str) -> str | None:
        return " ".join((root.findtext(tag) or "").split()) or None

    return Document(
        title=field(f"{_DC}title"),
        author=field(f"{_DC}creator"),
        year=year_in(root.findtext(f"{_DCTERMS}created") or ""),
        language=field(f"{_DC}language"),
    )


def local(tag: str) -> str:
    """A tag's name without its namespace: ``{…}p`` is ``p``."""
    return tag.rsplit("}", 1)[-1]


def resolve(base: str, target: str) -> str:
    """A relationship's target as a part name: relative to ``base``'s folder."""
    if target.startswith("/"):
        return target.lstrip("/")
    parts = [p for p in base.rsplit("/", 1)[0].split("/") if p] if "/" in base else []
    for piece in target.split("/"):
        if piece == "..":
            if parts:
                parts.pop()
        elif piece and piece != ".":
            parts.append(piece)
    return "/".join(parts)


def numbered(name: str) -> int:
    """The number in a part's name (``slide12.xml``: 12), for ordering."""
    found = re.findall(r"\d+", name)
    return int(found[-1]) if found else 0
