"""Word (``.docx``): headings give the structure, paragraphs, lists and tables the passages.

Read with the standard library (``ingest/packages.py``): ``word/document.xml`` in order, the
styles of ``word/styles.xml`` to tell headings (the built-in "heading 1"…"heading 9", whatever
the language of Word, or any style or paragraph with an outline level) and code (a style
named like "Code" or "Preformatted", or text set in a monospaced font all through), and the
core properties (``docProps/core.xml``) for the title, author, year and language. Without a
title there, the "Title" paragraph, else the first heading, names the document. Code stays
code, fenced with its lines. Word keeps no pages until a document is laid out, so ``page`` is
unknown; deleted text of tracked changes and field codes are not text.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from groundwork.ingest.document import TextBuilder, answer_of, nested, pack, slug
from groundwork.ingest.packages import Package, core_properties, local

if TYPE_CHECKING:
    from xml.etree.ElementTree import Element

    from groundwork.ingest.document import Document

PASSAGE_CHARS = 900
_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_MONOSPACED = frozenset(
    {"courier", "courier new", "consolas", "menlo", "monaco", "lucida console",
     "source code pro", "dejavu sans mono", "liberation mono", "cascadia code", "fira code"}
)  # fmt: skip
_CODE_STYLES = ("code", "source", "preformatted", "verbatim", "listing", "macro text")


@dataclass(frozen=True)
class _Style:
    heading: int | None = None  # 1-9
    title: bool = False
    code: bool = False


def parse_docx(raw: bytes) -> Document:
    package = Package(raw)
    styles = _styles(package)
    body = package.xml("word/document.xml").find(f"{_W}body")
    if body is None:
        raise ValueError("word/document.xml has no body")
    document = core_properties(package)
    reader = _Reader(document, styles)
    for element in _blocks(body):
        reader.read(element)
    reader.finish()
    return document


def _blocks(body: Element) -> list[Element]:
    """Paragraphs and tables in order, content controls (``w:sdt``) opened."""
    found: list[Element] = []
    for element in body:
        name = local(element.tag)
        if name in ("p", "tbl"):
            found.append(element)
        elif name == "sdt":
            content = element.find(f"{_W}sdtContent")
            if content is not None:
                found += _blocks(content)
    return found


class _Reader:
    def __init__(self, document: Document, styles: dict[str, _Style]) -> None:
        self.document = document
        self.styles = styles
        self.built = TextBuilder()
        self.outline: list[tuple[int, str]] = []
        self.paragraphs: list[str] = []
        self.code: list[str] = []
        self.first_heading: str | None = None

    def read(self, element: Element) -> None:
        if local(element.tag) == "tbl":
            self._end_code()
            rows = [
                " | ".join(" ".join(_text(cell).split()) for cell in row.iter(f"{_W}tc"))
                for row in element.iter(f"{_W}tr")
            ]
            self.paragraphs.append("\n".join(r for r in rows if r.strip(" |")))
            return
        style = self._style(element)
        text = _text(element)
        if style.code:
            self.code.append(text.rstrip())
            return
        self._end_code()
        line = " ".join(text.split())
        if not line:
            return
        if style.title:
            self.document.title = self.document.title or line
        elif style.heading:
            self._flush()
            self.outline = nested(self.outline, style.heading, line)
            self.first_heading = self.first_heading or line
            self.built.add(line)
        else:
            listed = element.find(f"{_W}pPr/{_W}numPr") is not None
            self.paragraphs.append(f"- {line}" if listed else line)

    def finish(self) -> None:
        self._end_code()
        self._flush()
        self.document.title = self.document.title or self.first_heading
        self.document.text = self.built.text

    def _end_code(self) -> None:
        if self.code:
            self.paragraphs.append("```\n" + "\n".join(self.code).strip("\n") + "\n```")
            self.code = []

    def _flush(self) -> None:
        path = [title for _, title in self.outline]
        anchor = slug(path[-1]) if path else None
        for piece, reference in pack(self.paragraphs, PASSAGE_CHARS):
            text, questions = answer_of(piece)
            for question in questions[:1]:
                self.built.add(question)
            self.document.passages.append(
                self.built.passage(text, path + questions[:1], anchor, reference)
            )
        self.paragraphs.clear()

    def _style(self, paragraph: Element) -> _Style:
        properties = paragraph.find(f"{_W}pPr")
        style = _Style()
        if properties is not None:
            named = properties.find(f"{_W}pStyle")
            if named is not None:
                style = self.styles.get(named.get(f"{_W}val", ""), style)
            outline = _outline(properties)
            if outline is not None:
                style = _Style(heading=outline, title=style.title, code=style.code)
        if not style.code and _monospaced(paragraph):
            style = _Style(code=True)
        return style


def _text(element: Element) -> str:
    """The text of a paragraph (or cell) as written: tabs and line breaks kept, deleted text
    and field codes left out (they are other elements than ``w:t``)."""
    pieces: list[str] = []
    for node in element.iter():
        name = local(node.tag)
        if name == "t":
            pieces.append(node.text or "")
        elif name == "tab":
            pieces.append("\t")
        elif name in ("br", "cr"):
            pieces.append("\n")
        elif name == "noBreakHyphen":
            pieces.append("-")
        elif name == "p" and pieces and node is not element:
            pieces.append("\n")  # paragraphs inside a table cell
    return "".join(pieces)


def _outline(properties: Element) -> int | None:
    level = properties.find(f"{_W}outlineLvl")
    value = level.get(f"{_W}val", "") if level is not None else ""
    # Level 9 is Word's "body text".
    return int(value) + 1 if value.isdigit() and int(value) < 9 else None


def _monospaced(paragraph: Element) -> bool:
    """Every run with text is set in a monospaced font."""
    runs = [r for r in paragraph.iter(f"{_W}r") if "".join(t.text or "" for t in r.iter(f"{_W}t"))]
    if not runs:
        return False
    for run in runs:
        fonts = run.find(f"{_W}rPr/{_W}rFonts")
        font = "" if fonts is None else fonts.get(f"{_W}ascii") or fonts.get(f"{_W}hAnsi") or ""
        if font.lower() not in _MONOSPACED:
            return False
    return True


def _styles(package: Package) -> dict[str, _Style]:
    """Paragraph styles by id, with what they inherit (``w:basedOn``)."""
    if "word/styles.xml" not in package.names:
        return {}
    raw: dict[str, tuple[str, int | None, str | None]] = {}
    for style in package.xml("word/styles.xml").iter(f"{_W}style"):
        if style.get(f"{_W}type") not in (None, "paragraph"):
            continue
        name = style.find(f"{_W}name")
        based = style.find(f"{_W}basedOn")
        properties = style.find(f"{_W}pPr")
        raw[style.get(f"{_W}styleId", "")] = (
            (name.get(f"{_W}val", "") if name is not None else "").lower(),
            _outline(properties) if properties is not None else None,
            based.get(f"{_W}val") if based is not None else None,
        )

    def resolved(style_id: str, depth: int = 0) -> _Style:
        name, outline, based = raw[style_id]
        if name.startswith("heading ") and name[8:].isdigit():
            return _Style(heading=int(name[8:]))
        if outline is not None:
            return _Style(heading=outline)
        if name in ("title", "subtitle"):
            return _Style(title=name == "title")
        if any(word in name for word in _CODE_STYLES):
            return _Style(code=True)
        if based in raw and depth < 10:
            return resolved(based, depth + 1)
        return _Style()

    return {style_id: resolved(style_id) for style_id in raw}
