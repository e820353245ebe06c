"""Markdown: front matter for metadata, headings for structure, paragraphs for passages.

Passages keep their Markdown as written, so a citation quotes the file exactly.
"""

from __future__ import annotations

import re

from groundwork.ingest.document import Document, Passage, answer_of, is_content, pack, slug

_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_FENCE = re.compile(r"^(```|~~~)")
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_EMPHASIS = re.compile(r"(\*\*|__|\*|_)(?=\S)(.+?)(?<=\S)\1")
_FRONT_MATTER_KEYS = ("title", "author", "year", "url", "language", "period_start", "period_end")

PASSAGE_CHARS = 900


def parse_markdown(text: str) -> Document:
    document = Document()
    body = _front_matter(text, document)
    path: list[str] = []
    anchor: str | None = None
    paragraphs: list[str] = []

    def flush() -> None:
        for piece, reference in pack(paragraphs, PASSAGE_CHARS):
            text, questions = answer_of(piece)
            document.passages.append(Passage(text, path + questions[:1], anchor, reference))
        paragraphs.clear()

    for block in _blocks(body):
        heading = _HEADING.match(block) if "\n" not in block else None
        if heading:
            flush()
            level, title = len(heading.group(1)), _inline(heading.group(2))
            if level == 1 and document.title is None:
                document.title = title
            path = [*path[: level - 1], title]
            anchor = slug(title)
        elif is_content(block):
            paragraphs.append(block)
    flush()
    return document


def _front_matter(text: str, document: Document) -> str:
    if not text.startswith("---\n"):
        return text
    end = text.find("\n---", 4)
    if end < 0:
        return text
    for line in text[4:end].splitlines():
        key, _, value = line.partition(":")
        key, value = key.strip().lower(), value.strip().strip("\"'")
        if key in _FRONT_MATTER_KEYS and value:
            setattr(document, key, value)
        elif key == "tags" and value:
            document.tags = [t.strip() for t in value.strip("[]").split(",") if t.strip()]
    return text[end + 4 :]


def _blocks(body: str) -> list[str]:
    """Paragraphs, headings and fenced code blocks, each as one block."""
    blocks: list[str] = []
    current: list[str] = []
    fenced = False
    for line in body.splitlines():
        if _FENCE.match(line.strip()):
            current.append(line)
            fenced = not fenced
            if not fenced:
                blocks.append("\n".join(current))
                current = []
            continue
        if fenced:
            current.append(line)
        elif not line.strip():
            if current:
                blocks.append("\n".join(current))
                current = []
        elif _HEADING.match(line):
            if current:
                blocks.append("\n".join(current))
                current = []
            blocks.append(line)
        else:
            current.append(line)
    if current:
        blocks.append("\n".join(current))
    return [b.strip() for b in blocks if b.strip()]


def _inline(text: str) -> str:
    text = _LINK.sub(r"\1", text)
    text = _EMPHASIS.sub(r"\2", text)
    return text.replace("`", "")
