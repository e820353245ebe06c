"""HTML: headings and their anchors give structure, block elements give paragraphs.

A ``<br>`` is a space between words (a line's end in code), and two in a row end a paragraph,
as pages written without ``<p>`` separate theirs.

A passage's URL points at its section: the heading's ``id``, or the ``<a name>``/``id`` just
before it. Metadata comes from ``<title>`` ("Title, by Author" is split), ``<meta
name="author">``, a date meta and ``<link rel="canonical">``. Two patterns of older pages are
read as metadata rather than text: a heading directly under another heading that holds a year
is a dateline (the section's year), and a short line in capitals just under a heading is a
byline (the section's author, as in "FEDERALIST No. 10" / "MADISON"). Paragraphs without their
own number are referenced by their position in the section.
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass, field
from html.parser import HTMLParser

from groundwork.ingest.document import (
    Document,
    Passage,
    TextBuilder,
    answer_of,
    is_content,
    number_of,
    parts,
    year_in,
)

PASSAGE_CHARS = 900

_BLOCKS = frozenset(
    "p div li blockquote pre td th dd dt center section article main aside header footer "
    "table tr ul ol dl figure figcaption form nav body hr".split()
)
_HEADINGS = {f"h{n}": n for n in range(1, 7)}
_SKIP = frozenset({"script", "style", "noscript", "template", "svg"})
_DATE_METAS = frozenset(
    {"date", "dc.date", "dcterms.date", "citation_publication_date", "article:published_time"}
)
# A link within the site: to a fragment or a relative path, with no scheme or host of its own.
_SITE_LINK = re.compile(r"^(?![a-zA-Z][\w+.-]*:|//)\S")
_PROSE_END = re.compile(r"[.?!\"'”’)]$")
_BYLINE = re.compile(
    r"^(?:BY\s+)?[A-Z][A-Z.'\- ]+(?:,? (?:AND|WITH|OR|and|with|or) [A-Z][A-Z.'\- ]+)*$"
)


@dataclass
class _Block:
    text: str
    heading: int = 0  # 1–6 for h1–h6, 0 for a paragraph
    anchor: str | None = None


@dataclass
class _Section:
    level: int
    title: str
    anchor: str | None
    author: str | None = None
    year: str | None = None
    path: list[str] = field(default_factory=list)
    paragraphs: list[str] = field(default_factory=list)


class _Reader(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.blocks: list[_Block] = []
        self.meta: dict[str, str] = {}
        self._text: list[str] = []
        # The current block's text inside links to this same page or another of the same site
        # (a relative link), and its words outside them: a block of such links and at most one
        # word more is navigation (a table of contents, "Next: The Galilean System of
        # Co-ordinates") and is dropped.
        self._site_link = False
        self._linked = False
        self._unlinked_words = 0
        self._skipping = 0
        self._in_title = False
        self._title: list[str] = []
        self._heading = 0
        self._heading_anchor: str | None = None
        self._anchor: str | None = None
        # Inside <pre>: code, whose line breaks are kept (the block is fenced as in Markdown).
        self._pre = 0
        # Where the text stood at the last <br>: a second one with nothing between them ends
        # the paragraph, as pages written without <p> separate theirs ("…<br><br>…").
        self._break: int | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {k: v or "" for k, v in attrs}
        if tag in _SKIP:
            self._skipping += 1
        elif tag == "title":
            self._in_title = True
        elif tag == "html" and values.get("lang"):
            self.meta.setdefault("language", values["lang"][:2].lower())
        elif tag == "meta":
            name = (values.get("name") or values.get("property") or "").lower()
            if name == "author" and values.get("content"):
                self.meta.setdefault("author", values["content"].strip())
            elif name in _DATE_METAS and year_in(values.get("content", "")):
                self.meta.setdefault("year", year_in(values["content"]) or "")
            elif name == "og:url" and values.get("content"):
                self.meta.setdefault("url", values["content"].strip())
        elif tag == "link" and values.get("rel", "").lower() == "canonical" and values.get("href"):
            self.meta["url"] = values["href"].strip()
        if tag == "br":
            self._line_break()
        if tag in _HEADINGS:
            self._flush()
            self._heading = _HEADINGS[tag]
            self._heading_anchor = values.get("id") or self._anchor
        elif tag in _BLOCKS:
            self._flush()
        if tag == "pre":
            self._pre += 1
        if tag == "a" and _SITE_LINK.match(values.get("href", "")):
            self._site_link = True
        anchor = values.get("id") or (values.get("name") if tag == "a" else None)
        if anchor and not "".join(self._text).strip():
            self._anchor = anchor

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIP:
            self._skipping = max(0, self._skipping - 1)
        elif tag == "title":
            self._in_title = False
        elif tag == "a":
            self._site_link = False
        elif tag in _HEADINGS or tag in _BLOCKS:
            self._flush()
            if tag == "pre":
                self._pre = max(0, self._pre - 1)

    def handle_data(self, data: str) -> None:
        if self._skipping:
            return
        if self._in_title:
            self._title.append(data)
        else:
            self._text.append(data)
            if self._site_link:
                self._linked = self._linked or bool(data.strip())
            else:
                self._unlinked_words += len(data.split())

    def close(self) -> None:
        super().close()
        self._flush()
        if self._title:
            self.meta.setdefault("title", " ".join("".join(self._title).split()))

    def _line_break(self) -> None:
        """A line break: a line of code, a space in a line of text, and two of them in a row
        (out of a heading) a paragraph's end."""
        if self._pre or self._heading:
            self._text.append("\n")
        elif self._break is not None and not "".join(self._text[self._break :]).strip():
            self._flush()
        else:
            self._text.append("\n")
            self._break = len(self._text)

    def _flush(self) -> None:
        self._break = None
        text = " ".join("".join(self._text).split())
        if self._pre and text:
            code = textwrap.dedent("".join(self._text).strip("\n")).rstrip()
            text = f"```\n{code}\n```"
        navigation = self._linked and self._unlinked_words <= 1
        self._text.clear()
        self._linked, self._unlinked_words = False, 0
        if text and (self._heading or not navigation):
            anchor = self._heading_anchor if self._heading else None
            self.blocks.append(_Block(text, self._heading, anchor))
            self._anchor = None
        self._heading, self._heading_anchor = 0, None


def parse_html(text: str) -> Document:
    blocks, meta = blocks_of(text)
    title, _, author = meta.get("title", "").partition(", by ")
    document = Document(
        title=title or None,
        author=meta.get("author") or author or None,
        year=meta.get("year"),
        url=meta.get("url"),
        language=meta.get("language"),
    )
    fill(document, blocks)
    return document


def blocks_of(text: str) -> tuple[list[_Block], dict[str, str]]:
    """An HTML page's blocks in reading order, and its metadata (``title``, ``author``…)."""
    reader = _Reader()
    reader.feed(text)
    reader.close()
    return reader.blocks, reader.meta


def fill(document: Document, blocks: list[_Block], *, anchors: bool = True) -> None:
    """The document's passages and extracted text from its pages' blocks; its title, when it
    has none, from the first ``h1``. Without ``anchors``, passages point at no section (an
    EPUB's chapters are files inside the book, which no link opens)."""
    blocks = _without_licence(blocks)
    if document.title is None:
        document.title = next((b.text for b in blocks if b.heading == 1), None)
    built = TextBuilder()
    for section in _sections(blocks):
        if not anchors:
            section.anchor = None
        if section.title:
            built.add(section.title)
        document.passages.extend(_passages(section, built))
    document.text = built.text


def _sections(blocks: list[_Block]) -> list[_Section]:
    sections: list[_Section] = []
    stack: list[_Section] = []
    current = _Section(0, "", None)
    sections.append(current)
    for block in blocks:
        fresh = not current.paragraphs and current.level > 0
        if block.heading:
            if fresh and block.heading > current.level and year_in(block.text):
                current.year = year_in(block.text)  # a dateline, not a heading
                continue
            stack = [s for s in stack if s.level < block.heading]
            parent = stack[-1] if stack else None
            current = _Section(
                block.heading,
                block.text,
                block.anchor or (parent.anchor if parent else None),
                parent.author if parent else None,
                parent.year if parent else None,
            )
            stack.append(current)
            current.path = [s.title for s in stack]
            sections.append(current)
        elif fresh and len(block.text) <= 60 and _BYLINE.match(block.text):
            name = re.sub(r"^BY\s+", "", block.text)
            current.author = " ".join(w.title() if w.isupper() else w for w in name.split())
        else:
            if is_content(block.text):
                current.paragraphs.append(block.text)
    if len(sections) > 1 and all(_masthead(p) for p in sections[0].paragraphs):
        sections[0].paragraphs.clear()
    return [s for s in sections if s.paragraphs]


def _masthead(paragraph: str) -> bool:
    """A line before a page's first heading that says no sentence: the work or the part the
    page belongs to ("Albert Einstein: Relativity Part I: The Special Theory of Relativity"),
    which every page of the part repeats and no question is answered by."""
    return len(paragraph) <= 120 and not _PROSE_END.search(paragraph)


def _passages(section: _Section, built: TextBuilder) -> list[Passage]:
    passages: list[Passage] = []
    pieces: list[str] = []
    numbers: list[str] = []
    ordinal = 0

    def flush() -> None:
        if pieces:
            reference = None
            if numbers:
                reference = numbers[0] if len(numbers) == 1 else f"{numbers[0]}–{numbers[-1]}"
            text, questions = answer_of("\n\n".join(pieces))
            for question in questions[:1]:
                built.add(question)
            passages.append(
                built.passage(text, section.path + questions[:1], section.anchor, reference,
                              author=section.author, year=section.year)
            )  # fmt: skip
        pieces.clear()
        numbers.clear()

    for paragraph in section.paragraphs:
        own = number_of(paragraph)
        if _PROSE_END.search(paragraph) or own:
            ordinal += 1
        for index, part in enumerate(parts(paragraph, PASSAGE_CHARS)):
            size = sum(len(p) + 2 for p in pieces) + len(part)
            # Lines that are not prose ("To the People of the State of New York:", "we should
            # have obtained the following equations:") stay with the paragraph after them.
            if numbers and ((own and index == 0) or size > PASSAGE_CHARS):
                last = pieces[-1]
                carried = not _PROSE_END.search(last) and number_of(last) is None
                if carried:
                    pieces.pop()
                flush()
                if carried:
                    pieces.append(last)
            pieces.append(part)
            number = own or str(ordinal)
            if (own or _PROSE_END.search(paragraph)) and number not in numbers[-1:]:
                numbers.append(number)
    flush()
    return passages


def _without_licence(blocks: list[_Block]) -> list[_Block]:
    """Project Gutenberg pages: the blocks between the START and END markers."""
    start = _marker(blocks, "START")
    end = _marker(blocks, "END")
    return blocks[(start + 1 if start is not None else 0) : end]


def _marker(blocks: list[_Block], which: str) -> int | None:
    pattern = re.compile(rf"\*\*\* ?{which} OF (?:THE|THIS) PROJECT GUTENBERG")
    return next((i for i, b in enumerate(blocks) if pattern.search(b.text)), None)
