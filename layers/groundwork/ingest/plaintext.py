"""Plain text: blank lines separate paragraphs; short title-like blocks are headings.

A heading is a short block that starts with a structural word and a number ("Article 1",
"LESSON FIRST. / ON THE END OF MAN.") or is written in capitals. A paragraph that opens with
"Section 2." starts a section of its own. Project Gutenberg e-texts lose their licence and
give their header's title and author; their producers' credits and transcriber's notes are
not content. A catechism's "Q. 12. {3} Question? A. Answer." is its answer, headed by its
question and cited by its number.
"""

from __future__ import annotations

import re

from groundwork.ingest.document import Document, Passage, answer_of, gutenberg, is_content, pack

PASSAGE_CHARS = 900

_ORDINAL = (
    r"(?:\d+|[IVXLC]+|[A-Z][a-z]*(?:-[a-z]+)?|[A-Z]+(?:-[A-Z]+)?)"  # 3, IV, Third, THIRTY-FIRST
)
# The structural words, by depth.
_LEVELS = {"part": 1, "book": 1, "chapter": 2, "lesson": 2, "article": 2, "amendment": 2,
           "section": 3}  # fmt: skip
_KEYWORD = re.compile(rf"^({'|'.join(_LEVELS)})\s+{_ORDINAL}\.?(?=\s|$)", re.I)
_INLINE_SECTION = re.compile(r"^(Section\s+\d+)\.\s+\S", re.I)
_HEADING_CHARS = 120


def parse_text(text: str) -> Document:
    fields, body = gutenberg(text.replace("\r\n", "\n"))
    blocks = [" ".join(b.split()) for b in re.split(r"\n\s*\n", body) if b.strip()]
    document = Document(
        title=fields.get("title") or (blocks[0][:200] if blocks else None),
        author=fields.get("author"),
        language=fields.get("language", "").lower()[:2] or None,
    )
    path: list[tuple[int, str]] = []
    reference: str | None = None
    paragraphs: list[str] = []

    def flush() -> None:
        headings = [title for _, title in path]
        for piece, number in pack(paragraphs, PASSAGE_CHARS):
            text, questions = answer_of(piece)
            document.passages.append(
                Passage(text, headings + questions[:1], reference=number or reference)
            )
        paragraphs.clear()

    for block in filter(is_content, blocks):
        level = _heading_level(block)
        inline = _INLINE_SECTION.match(block)
        if level is None and inline:
            level, title = _LEVELS["section"], inline.group(1)
        elif level is not None:
            title = block
        else:
            paragraphs.append(block)
            continue
        flush()
        path = [(lvl, t) for lvl, t in path if lvl < level] + [(level, title)]
        # A section opened inside a paragraph is cited by its place: "Article 1, Section 8".
        reference = ", ".join(t for _, t in path) if inline and level is not None else None
        if inline:
            paragraphs.append(block)
    flush()
    return document


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
