"""Plain text: the first line is the title, blank lines separate paragraphs."""

from __future__ import annotations

from groundwork.ingest.document import Document, Passage, pack

PASSAGE_CHARS = 900


def parse_text(text: str) -> Document:
    paragraphs = [" ".join(p.split()) for p in text.split("\n\n") if p.strip()]
    document = Document(title=paragraphs[0][:200] if paragraphs else None)
    document.passages = [Passage(piece) for piece in pack(paragraphs, PASSAGE_CHARS)]
    return document
