"""PowerPoint (``.pptx``): one passage per slide, headed by the slide's title.

Read with the standard library (``ingest/packages.py``): the slides in the order of
``ppt/presentation.xml``, each slide's title placeholder as its heading (else "Slide N") and
the text of its other shapes, tables and groups, one paragraph a line. A slide is a page: its
passage's ``page`` is the slide's number, its reference "slide N", and the extracted text puts
a form feed between slides, as between a PDF's pages. Speaker notes are not read.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from groundwork.ingest.document import TextBuilder, pack
from groundwork.ingest.packages import Package, core_properties, local, resolve

if TYPE_CHECKING:
    from xml.etree.ElementTree import Element

    from groundwork.ingest.document import Document

PASSAGE_CHARS = 900
_P = "{http://schemas.openxmlformats.org/presentationml/2006/main}"
_A = "{http://schemas.openxmlformats.org/drawingml/2006/main}"
_R = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}"
_RELS = "{http://schemas.openxmlformats.org/package/2006/relationships}"
_TITLES = frozenset({"title", "ctrTitle"})


def parse_pptx(raw: bytes) -> Document:
    package = Package(raw)
    document = core_properties(package)
    built = TextBuilder()
    for number, name in enumerate(_slides(package), start=1):
        if number > 1:
            built.new_page()
        title, paragraphs = _slide(package.xml(name))
        heading = title or f"Slide {number}"
        built.add(heading)
        document.title = document.title or title
        for piece, _ in pack(paragraphs, PASSAGE_CHARS):
            document.passages.append(
                built.passage(piece, [heading], reference=f"slide {number}", paged=True)
            )
    document.text = built.text
    return document


def _slides(package: Package) -> list[str]:
    presentation = package.xml("ppt/presentation.xml")
    rels = package.xml("ppt/_rels/presentation.xml.rels")
    targets = {r.get("Id"): r.get("Target", "") for r in rels.iter(f"{_RELS}Relationship")}
    names = []
    for slide in presentation.iter(f"{_P}sldId"):
        target = targets.get(slide.get(f"{_R}id"))
        if target:
            names.append(resolve("ppt/presentation.xml", target))
    return [name for name in names if name in package.names]


def _slide(root: Element) -> tuple[str | None, list[str]]:
    title: str | None = None
    paragraphs: list[str] = []
    for shape in root.iter():
        if local(shape.tag) not in ("sp", "graphicFrame"):
            continue
        placeholder = shape.find(f"{_P}nvSpPr/{_P}nvPr/{_P}ph")
        lines = [_line(p) for p in shape.iter(f"{_A}p")]
        lines = [line for line in lines if line]
        if placeholder is not None and placeholder.get("type") in _TITLES and title is None:
            title = " ".join(" ".join(lines).split()) or None
        elif lines:
            paragraphs.append("\n".join(lines))
    return title, paragraphs


def _line(paragraph: Element) -> str:
    pieces = []
    for node in paragraph.iter():
        name = local(node.tag)
        if name == "t":
            pieces.append(node.text or "")
        elif name == "br":
            pieces.append(" ")
    return " ".join("".join(pieces).split())
