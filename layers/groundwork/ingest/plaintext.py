"""Plain text: blank lines separate paragraphs; short title-like blocks are headings.

Text that is not wrapped (a line of more than 200 characters) has a paragraph per line, as
a word processor or a web page copied as text writes it, blank lines or not.

A heading is a short block that starts with a structural word and a number ("Article 1",
"LESSON FIRST. / ON THE END OF MAN.") or is written in capitals. A paragraph that opens with
"Section 2." starts a section of its own. Project Gutenberg e-texts lose their licence and
give their header's title and author; their producers' credits and transcriber's notes are
not content, and the mark of a picture the file lacks ("[Illustration: Fig. 5.]") is its
caption alone, or nothing when it only numbers the figure. A catechism's "Q. 12. {3}
Question? A. Answer." is its answer, headed by its question and cited by its number. A line
underlined (or over- and underlined) with ``=``, ``-``, ``~``… is a heading too, as in
reStructuredText and setext Markdown, each style a level in the order they first appear; a
block whose every line is indented is code, kept with its line breaks (fenced, as in
Markdown).
"""

from __future__ import annotations

import re
import textwrap

from groundwork.ingest.document import (
    Document,
    TextBuilder,
    answer_of,
    gutenberg,
    is_content,
    nested,
    pack,
)

PASSAGE_CHARS = 900

_ORDINAL = (
    r"(?:\d+|[IVXLC]+|[A-Z][a-z]*(?:-[a-z]+)?|[A-Z]+(?:-[A-Z]+)?)"  # 3, IV, Third, THIRTY-FIRST
)
# The structural words, by depth.
_LEVELS = {"part": 1, "book": 1, "chapter": 2, "lesson": 2, "article": 2, "amendment": 2,
           "section": 3}  # fmt: skip
#: The level of the first underline style; each new style is one deeper. The structural
#: words keep theirs (Part 1, Chapter 2, Section 3).
_UNDERLINED_LEVEL = 1
_KEYWORD = re.compile(rf"^({'|'.join(_LEVELS)})\s+{_ORDINAL}\.?(?=\s|$)", re.I)
_INLINE_SECTION = re.compile(r"^(Section\s+\d+)\.\s+\S", re.I)
_HEADING_CHARS = 120
_UNTITLED = re.compile(r"^(?:.*[.:;!?]|\[.*\])$", re.S)
# A line of one punctuation character repeated: an underline, an overline or a transition.
_RULE = re.compile(r"^([=\-~^*#+`:.'\"_])\1{2,}\s*$")
_INDENTED = re.compile(r"^(?: {4}|\t)")
# A Project Gutenberg text marks where its book had a picture: "[Illustration]",
# "[Illustration: Fig. 5.]", "[Illustration: Fig. 3.--The flame of a candle]".
_ILLUSTRATION = re.compile(r"\[Illustration(?::\s*(?P<caption>[^\]]*))?\]", re.I)
_ILLUSTRATIONS = re.compile(rf"(?:{_ILLUSTRATION.pattern}\s*)+", re.I)
_FIGURE_NUMBER = re.compile(
    r"^(?i:fig(?:ure)?|plate)\.?\s*(?:\d+|[IVXLC]+)[a-z]?\b\.?(?:\s*[-—–:.]+)?\s*"
)
# No one wraps text this wide by hand or by tool, so a line this long is a paragraph of its own.
_UNWRAPPED_CHARS = 200


def parse_text(text: str) -> Document:
    fields, body = gutenberg(text.replace("\r\n", "\n"))
    styles: list[tuple[str, bool]] = []  # underline styles, in the order they first appear
    blocks = [_block(b, styles) for b in _raw_blocks(body)]
    blocks = [b for b in blocks if b[0]]
    first = blocks[0][0] if blocks else ""
    document = Document(
        # The first block names the document when it is short, as a title is; a sentence, a
        # salutation ("Fellow-Citizens:") or an editor's note ("[Delivered in person]") does not.
        title=fields.get("title")
        or (first if 0 < len(first) <= _HEADING_CHARS and not _UNTITLED.match(first) else None),
        author=fields.get("author"),
        language=fields.get("language"),
    )
    built = TextBuilder()
    path: list[tuple[int, str]] = []
    reference: str | None = None
    paragraphs: list[str] = []

    def flush() -> None:
        headings = [title for _, title in path]
        for piece, number in pack(paragraphs, PASSAGE_CHARS):
            text, questions = answer_of(piece)
            for question in questions[:1]:
                built.add(question)
            document.passages.append(
                built.passage(text, headings + questions[:1], reference=number or reference)
            )
        paragraphs.clear()

    for block, underlined in blocks:
        if not is_content(block):
            continue
        level = underlined or (None if block.startswith("```") else _heading_level(block))
        inline = _INLINE_SECTION.match(block)
        if level is None and inline:
            level, title = _LEVELS["section"], inline.group(1)
        elif level is not None:
            title = block
        else:
            paragraphs.append(block)
            continue
        flush()
        path = nested(path, level, title)
        # A section opened inside a paragraph is cited by its place: "Article 1, Section 8".
        reference = ", ".join(t for _, t in path) if inline and level is not None else None
        if inline:
            paragraphs.append(block)
        else:
            built.add(title)
    flush()
    document.text = built.text
    return document


def _raw_blocks(body: str) -> list[str]:
    """The text between blank lines, each line apart where the text is not wrapped."""
    blocks = []
    for raw in re.split(r"\n\s*\n", body):
        lines = [line for line in raw.split("\n") if line.strip()]
        if len(lines) > 1 and max(map(len, lines)) > _UNWRAPPED_CHARS:
            blocks += lines
        elif lines:
            blocks.append(raw)
    return blocks


def _block(raw: str, styles: list[tuple[str, bool]]) -> tuple[str, int | None]:
    """A block's text, and its heading level when it is an underlined title.

    Lines are joined, except in code (every line indented), which keeps its line breaks in a
    fence. An underline is at least half as long as its one-line title.
    """
    lines = [line.rstrip() for line in raw.strip("\n").split("\n") if line.strip()]
    if lines and all(_INDENTED.match(line) for line in lines):
        return "```\n" + textwrap.dedent("\n".join(lines)) + "\n```", None
    over = bool(lines) and _RULE.match(lines[0].strip()) is not None and len(lines) >= 3
    body = lines[1:] if over else lines
    under = _RULE.match(body[-1].strip()) if len(body) == 2 else None
    if (
        under
        and len(body[-1].strip()) * 2 >= len(body[0].strip())
        and (not over or lines[0].strip()[0] == under.group(1))
    ):
        style = (under.group(1), over)
        if style not in styles:
            styles.append(style)
        return " ".join(" ".join(body[:-1]).split()), _UNDERLINED_LEVEL + styles.index(style)
    kept = [line for line in lines if not _RULE.match(line.strip())]  # transitions
    return _caption(" ".join(" ".join(kept).split())), None


def _caption(block: str) -> str:
    """A block of illustration marks read as their captions, without the figure's number,
    which says nothing without the picture; any other block as it is."""
    if not _ILLUSTRATIONS.fullmatch(block):
        return block
    captions = (
        _FIGURE_NUMBER.sub("", m.group("caption") or "").strip()
        for m in _ILLUSTRATION.finditer(block)
    )
    return " ".join(c for c in captions if c)


def _heading_level(block: str) -> int | None:
    if len(block) > _HEADING_CHARS:
        return None
    keyword = _KEYWORD.match(block)
    if keyword and not _INLINE_SECTION.match(block):
        return _LEVELS[keyword.group(1).lower()]
    letters = [c for c in block if c.isalpha()]
    if len(letters) > 3 and all(c.isupper() for c in letters) and not block.endswith(","):
        return max((lvl for lvl in _LEVELS.values() if lvl <= 2), default=2)
    return None
