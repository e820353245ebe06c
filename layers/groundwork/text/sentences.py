"""Sentence segmentation that returns character spans, so callers can keep exact offsets."""

from __future__ import annotations

import re
from dataclasses import dataclass

# Abbreviations after which a period does not end a sentence.
_ABBREVIATIONS = frozenset(
    """mr mrs ms dr prof sr jr st vs etc e.g i.e cf al fig no nos vol pp approx inc ltd co corp
    jan feb mar apr jun jul aug sep sept oct nov dec u.s u.k a.m p.m""".split()
)
# A sentence ends at . ! ? (and CJK full stops), optionally followed by closing quotes/brackets.
_END = re.compile(r"[.!?。！？]+[\"'”’)\]]*")


@dataclass(frozen=True)
class Span:
    start: int
    end: int
    text: str


def split_sentences(text: str) -> list[Span]:
    """Split ``text`` into sentences; spans are character offsets, end exclusive, trimmed."""
    spans: list[Span] = []
    start = 0
    for block in re.finditer(r"[^\n]+(?:\n(?!\s*\n)(?!\s*(?:[-*•]|\d+[.)])\s)[^\n]+)*", text):
        start = block.start()
        for match in _END.finditer(text, block.start(), block.end()):
            end = match.end()
            if not _is_boundary(text, match.start(), end, block.end()):
                continue
            _append(spans, text, start, end)
            start = end
        _append(spans, text, start, block.end())
    return spans


def _is_boundary(text: str, stop: int, end: int, limit: int) -> bool:
    mark = text[stop]
    if mark in "。！？":
        return True
    if end < limit and not text[end].isspace():
        return False  # "3.14", "example.com", "e.g.x"
    if mark == ".":
        word = re.search(r"([\w.]+)$", text[max(0, stop - 12) : stop])
        if word and word.group(1).lower() in _ABBREVIATIONS:
            return False
        if word and len(word.group(1)) == 1 and word.group(1).isupper():
            return False  # an initial: "J. Smith"
    rest = text[end:limit].lstrip()
    return not rest or not rest[0].islower()


def _append(spans: list[Span], text: str, start: int, end: int) -> None:
    piece = text[start:end]
    stripped = piece.strip()
    if not stripped:
        return
    offset = start + (len(piece) - len(piece.lstrip()))
    spans.append(Span(offset, offset + len(stripped), stripped))
