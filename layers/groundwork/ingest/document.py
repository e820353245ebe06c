"""What a parser produces: a document's metadata, its extracted text and its passages in
reading order, each with where it is in that text.

The extracted text is the document as Groundwork read it: headings and paragraphs in reading
order, a blank line between two blocks, a form feed between two pages of a PDF (so the page of
an offset is the form feeds before it, plus one). Every passage's text is exactly
``document.text[passage.start:passage.end]``, which is what a citation's ``source_location``
points at; ``groundwork ingest --text FILE`` prints it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from itertools import pairwise
from typing import TYPE_CHECKING, Any

from groundwork.text.sentences import split_sentences

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

# "34. The Church…", "Q. 126. What…", "¶ 12 …", "(3) The…": the number is the reference.
_NUMBERED = re.compile(r"^(?:Q\.\s*|¶\s*)?(?:(\d{1,4})\.|\((\d{1,4})\))\s+\S")
_YEAR = re.compile(r"\b(1[5-9]\d\d|20\d\d)\b")
_GUTENBERG_START = re.compile(r"^\*\*\* ?START OF (?:THE|THIS) PROJECT GUTENBERG.*$", re.M)
_GUTENBERG_END = re.compile(r"^\*\*\* ?END OF (?:THE|THIS) PROJECT GUTENBERG.*$", re.M)
# What an e-text's producers added: credits, transcriber's notes ("{T.N.: …}"), the licence.
_NOT_CONTENT = re.compile(
    r"^\s*[{\[(]?\s*(?:transcriber['’]?s? notes?\b|T\.\s?N\.:|produced by\b"
    r"|end of (?:the |this )?project gutenberg"
    r"|(?:the )?project gutenberg\b.*\b(?:license|ebook)\b)",
    re.I,
)
# A catechism's question and answer: "Q. 577. {137} How many…? A. There are seven…".
_QUESTION_ANSWER = re.compile(
    r"^Q\.\s*(?:\d{1,4}\.?\s*)?(?:\{\d+\}\s*)?(?P<question>.{3,}?(?:\?[\"”']?|\.[\"”']?(?=\s+A\.)))"
    r"\s+(?:A\.\s+)?(?P<answer>\S.*)$",
    re.S,
)
# Numbers in braces ("{137}"): another edition's numbering, not text; but in a code span
# (group 1) a placeholder ("`'{0}'.format(x)`") is code.
_BRACED_NUMBER = re.compile(r"(`+[^`\n]*`+)|\s*\{\d{1,4}\}")
# A line opening or closing a fenced code block, as every parser writes code.
_FENCE_LINE = re.compile(r"^\s*(?:```|~~~)", re.M)
# A line of a table, a list or a quote: a paragraph with one is not prose to cut.
_NOT_PROSE = re.compile(r"^\s*(?:\||[-*+•>]\s|\d{1,3}[.)]\s)", re.M)


@dataclass
class Passage:
    """One passage; metadata set here overrides the document's (a paper's own author)."""

    text: str
    heading_path: list[str] = field(default_factory=list)
    anchor: str | None = None
    reference: str | None = None
    title: str | None = None
    author: str | None = None
    year: str | None = None
    url: str | None = None
    tags: list[str] = field(default_factory=list)
    language: str | None = None
    period_start: str | None = None
    period_end: str | None = None
    #: Where the passage is in ``Document.text``: character offsets, end exclusive.
    start: int | None = None
    end: int | None = None
    #: A PDF's pages (one-based) the passage is on, first and last; None for other formats.
    page: int | None = None
    page_end: int | None = None


@dataclass
class Document:
    title: str | None = None
    author: str | None = None
    year: str | None = None
    url: str | None = None
    language: str | None = None
    tags: list[str] = field(default_factory=list)
    period_start: str | None = None
    period_end: str | None = None
    passages: list[Passage] = field(default_factory=list)
    #: The extracted text the passages point into (see the module's docstring).
    text: str = ""


class TextBuilder:
    """Builds a document's extracted text block by block, so that each passage knows where
    it is: :meth:`passage` appends its text and returns it with its offsets."""

    def __init__(self) -> None:
        self._parts: list[str] = []
        self._size = 0
        self._pages = 0  # form feeds owed before the next block
        self._page = 1

    def add(self, block: str) -> tuple[int, int]:
        """Append a block (a heading, a paragraph); its start and end offsets."""
        separator = "\f" * self._pages if self._pages else ("\n\n" if self._size else "")
        self._page += self._pages
        self._pages = 0
        self._parts += [separator, block]
        start = self._size + len(separator)
        self._size = start + len(block)
        return start, self._size

    def new_page(self) -> None:
        """What comes next is on the next page: a form feed, even where the text starts."""
        self._pages += 1

    def passage(
        self,
        text: str,
        heading_path: list[str] | None = None,
        anchor: str | None = None,
        reference: str | None = None,
        *,
        paged: bool = False,
        **fields: Any,
    ) -> Passage:
        """A passage of ``text``, appended here; ``paged``: on the current page."""
        start, end = self.add(text)
        page = self._page if paged else None
        return Passage(
            text, heading_path or [], anchor, reference, start=start, end=end, page=page,
            page_end=page, **fields,
        )  # fmt: skip

    @property
    def text(self) -> str:
        return "".join(self._parts)


def passage_tags(document: Document, passage: Passage, extra: Sequence[str] = ()) -> list[str]:
    """The tags of a passage's card: its own, its document's and those given at ingest."""
    return sorted({*document.tags, *passage.tags, *extra})


def nested(outline: list[tuple[int, str]], level: int, title: str) -> list[tuple[int, str]]:
    """The open headings, each with its level, once ``title`` opens at ``level``: it closes
    every one at its level or deeper, whatever level the document starts at (a page whose
    first heading is ``##`` is no child of it at its next ``##``)."""
    return [(lvl, t) for lvl, t in outline if lvl < level] + [(level, title)]


def slug(heading: str) -> str:
    """The anchor GitHub-style renderers give a heading."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return re.sub(r"\s", "-", text)


def number_of(paragraph: str) -> str | None:
    """The paragraph's own number ("34." → "34"), when it starts with one."""
    match = _NUMBERED.match(paragraph)
    if not match or re.search(r"\n\s*2\.\s", paragraph):  # "1. …\n2. …" is a list, not a §
        return None
    return match.group(1) or match.group(2)


def year_in(text: str) -> str | None:
    match = _YEAR.search(text)
    return match.group(1) if match else None


def pack(paragraphs: list[str], limit: int) -> list[tuple[str, str | None]]:
    """Join consecutive paragraphs into pieces of at most ``limit`` characters where possible.

    A numbered paragraph always starts a piece, so each piece has at most one number: its
    reference, returned with it. A paragraph that ends in a colon introduces the next one (a
    list, a table, a command): where the next one starts a piece, the introduction starts it
    too, so the piece that holds the list says what it lists. A paragraph of prose over twice
    ``limit`` is cut between its sentences (:func:`parts`); each part after the first has the
    paragraph's number as its reference.
    """
    pieces: list[tuple[str, str | None]] = []
    current: list[str] = []
    reference: str | None = None
    for paragraph, number, opens in _parted(paragraphs, limit):
        if current and (opens or len("\n\n".join([*current, paragraph])) > limit):
            introduction = _introduces(current[-1])
            if introduction and len(current) == 1:  # nothing before it: the piece grows
                current.append(paragraph)
                reference = number
                continue
            carried = [current.pop()] if introduction else []
            pieces.append(("\n\n".join(current), reference))
            current, reference = [*carried, paragraph], number
        else:
            current.append(paragraph)
            reference = reference or number
    if current:
        pieces.append(("\n\n".join(current), reference))
    return pieces


def parts(paragraph: str, limit: int) -> list[str]:
    """A paragraph of prose longer than twice ``limit``, cut between its sentences into parts
    of about equal length, as many as ``limit`` needs (a sentence is never cut, so a part may
    be a little longer); any other paragraph whole.

    A long paragraph as one passage is near too many questions: its many words match many,
    and past its first 512 tokens the embedder reads none of it. Of the Federalist's passages
    2.5% were over 2,500 characters, and one of them was among the five found for 85% of its
    questions, and the first for 30%. Code, tables, lists, quotes and a catechism's question
    with its answer stay whole, and so does a paragraph up to twice ``limit``: cut, its
    sentences lose the context that told a passage about the question from its neighbours
    (docs/architecture.md has the figures of both).
    """
    if len(paragraph) <= 2 * limit or not _prose(paragraph):
        return [paragraph]
    count = -(-len(paragraph) // limit)
    starts = [sentence.start for sentence in split_sentences(paragraph)][1:]
    cuts = [0]
    for index in range(1, count):
        aim = index * len(paragraph) / count
        if after := [start for start in starts if start > cuts[-1]]:
            cuts.append(min((abs(start - aim), start) for start in after)[1])
    cuts.append(len(paragraph))
    return [paragraph[a:b].strip() for a, b in pairwise(cuts)]


def _prose(paragraph: str) -> bool:
    return not (
        _FENCE_LINE.search(paragraph)
        or _NOT_PROSE.search(paragraph)
        or _QUESTION_ANSWER.match(paragraph)
    )


def _parted(paragraphs: list[str], limit: int) -> Iterator[tuple[str, str | None, bool]]:
    """Each paragraph's :func:`parts`, with the paragraph's number and whether that number
    starts a piece (on the first part only)."""
    for paragraph in paragraphs:
        number = number_of(paragraph)
        for index, part in enumerate(parts(paragraph, limit)):
            yield part, number, bool(number) and index == 0


def _introduces(paragraph: str) -> bool:
    """Ends in a colon, as prose does before what it introduces (not a code block), and has
    no number of its own, which would start a piece."""
    return (
        paragraph.rstrip().endswith(":")
        and not _FENCE_LINE.match(paragraph)
        and number_of(paragraph) is None
    )


def is_content(paragraph: str) -> bool:
    """False for what an e-text's producers added: credits, transcriber's notes, licence."""
    return not _NOT_CONTENT.match(paragraph)


def answer_of(piece: str) -> tuple[str, list[str]]:
    """A passage's text without question-and-answer markers and edition numbers, and the
    questions it answers: in a catechism the question is the answer's heading, not its text.
    Code is as written: a fenced block's blank lines do not end it, and its lines keep their
    indentation."""
    paragraphs, questions = [], []
    fenced = False
    for paragraph in piece.split("\n\n"):
        fences = len(_FENCE_LINE.findall(paragraph))
        if fenced or fences:
            paragraphs.append(paragraph)
            fenced = fenced != (fences % 2 == 1)
            continue
        match = _QUESTION_ANSWER.match(paragraph)
        if match:
            questions.append(_unbraced(match.group("question")).strip())
            paragraph = match.group("answer")
        if paragraph := _unbraced(paragraph).strip():
            paragraphs.append(paragraph)
    return "\n\n".join(paragraphs), questions


def _unbraced(text: str) -> str:
    return _BRACED_NUMBER.sub(lambda m: m.group(1) or "", text)


def gutenberg(text: str) -> tuple[dict[str, str], str]:
    """A Project Gutenberg e-text's header fields (``title``, ``author``, ``language``) and
    its body without the licence around it; any other text comes back unchanged."""
    start, end = _GUTENBERG_START.search(text), _GUTENBERG_END.search(text)
    if not start:
        return {}, text
    fields: dict[str, str] = {}
    for line in text[: start.start()].splitlines():
        key, _, value = line.partition(":")
        key = key.strip().lower()
        if key in ("title", "author", "language") and value.strip():
            fields[key] = " ".join(value.split())
    return fields, text[start.end() : end.start() if end else len(text)]
