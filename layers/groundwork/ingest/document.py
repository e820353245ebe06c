"""What a parser produces: a document's metadata and its passages in reading order."""

from __future__ import annotations

import re
from dataclasses import dataclass, field


@dataclass
class Passage:
    text: str
    heading_path: list[str] = field(default_factory=list)
    anchor: str | None = None
    reference: str | None = None


@dataclass
class Document:
    title: str | None = None
    author: str | None = None
    year: str | None = None
    url: str | None = None
    language: str | None = None
    tags: list[str] = field(default_factory=list)
    passages: list[Passage] = field(default_factory=list)


def slug(heading: str) -> str:
    """The anchor GitHub-style renderers give a heading."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return re.sub(r"\s", "-", text)


def pack(paragraphs: list[str], limit: int) -> list[str]:
    """Join consecutive paragraphs into pieces of at most ``limit`` characters where possible."""
    pieces: list[str] = []
    current = ""
    for paragraph in paragraphs:
        if current and len(current) + 2 + len(paragraph) > limit:
            pieces.append(current)
            current = paragraph
        else:
            current = f"{current}\n\n{paragraph}" if current else paragraph
    if current:
        pieces.append(current)
    return pieces
