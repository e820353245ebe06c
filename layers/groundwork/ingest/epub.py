"""EPUB: the book's chapters in reading order (the package's spine), read as HTML.

The package document (``content.opf``, found through ``META-INF/container.xml``) gives the
title, author, year and language (Dublin Core) and the order of the chapters; each chapter is
XHTML, cut into sections and passages exactly as an HTML page is (``ingest/html.py``), one
after the other. A passage links to the book, not to a chapter inside it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from groundwork.ingest.document import Document, year_in
from groundwork.ingest.html import blocks_of, fill
from groundwork.ingest.packages import Package, local, resolve

if TYPE_CHECKING:
    from xml.etree.ElementTree import Element

_CONTAINER = "{urn:oasis:names:tc:opendocument:xmlns:container}"
_OPF = "{http://www.idpf.org/2007/opf}"
_DC = "{http://purl.org/dc/elements/1.1/}"
_CHAPTER_TYPES = frozenset({"application/xhtml+xml", "text/html"})


def parse_epub(raw: bytes) -> Document:
    package = Package(raw)
    rootfile = package.xml("META-INF/container.xml").find(f".//{_CONTAINER}rootfile")
    if rootfile is None or not rootfile.get("full-path"):
        raise ValueError("META-INF/container.xml names no package document")
    opf_name = rootfile.get("full-path", "")
    opf = package.xml(opf_name)
    document = Document(
        title=_text(opf, "title"),
        author=_text(opf, "creator"),
        year=year_in(_text(opf, "date") or ""),
        language=_text(opf, "language"),
    )
    manifest = {
        item.get("id", ""): item
        for item in opf.iter(f"{_OPF}item")
        if item.get("media-type") in _CHAPTER_TYPES
    }
    blocks = []
    for itemref in opf.iter(f"{_OPF}itemref"):
        item = manifest.get(itemref.get("idref", ""))
        if item is None or itemref.get("linear") == "no":
            continue
        name = resolve(opf_name, item.get("href", ""))
        if name in package.names:
            chapter, _ = blocks_of(package.read(name).decode("utf-8", errors="replace"))
            blocks += chapter
    fill(document, blocks, anchors=False)
    return document


def _text(opf: Element, name: str) -> str | None:
    for element in opf.iter():
        if local(element.tag) == name and element.tag.startswith(_DC) and element.text:
            value = " ".join(element.text.split())
            if value:
                return value
    return None
