"""Evidence: the facts cut into sentence windows, the units a claim is checked against and cites."""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

from groundwork.grounding.base import Passage
from groundwork.text.sentences import split_sentences

if TYPE_CHECKING:
    from collections.abc import Sequence

    from groundwork.grounding.model import Fact

# A sentence longer than this (a table, a list with no stops) is cut at spaces, so that a
# citation stays a span and not a whole fact.
_MAX_WINDOW_CHARS = 600


class Window(NamedTuple):
    source: int  # the fact's index
    start: int  # character offsets into the fact's decoded text
    end: int
    text: str


# A check cuts 2 MB of facts into some 15,000 windows: tuple.__new__ builds each without the
# Python-level call of a NamedTuple's own __new__.
_new = tuple.__new__


@dataclass(frozen=True)
class Evidence:
    windows: list[Window]
    # Per window, what a verifier reads: its text and its fact's attributes as text ("author:
    # Wikipedia"), part of the fact, so a claim may lean on them whichever window it cites.
    passages: list[Passage]


def build_evidence(facts: Sequence[Fact]) -> Evidence:
    windows: list[Window] = []
    passages: list[Passage] = []
    for source, fact in enumerate(facts):
        text = html.unescape(fact.text)
        context = ". ".join(
            f"{html.unescape(k)}: {html.unescape(v)}" for k, v in fact.attributes.items()
        )
        first = len(windows)
        for start, end, sentence in split_sentences(text):
            if len(sentence) <= _MAX_WINDOW_CHARS:
                windows.append(_new(Window, (source, start, end, sentence)))
            else:
                windows.extend(_cut(source, start, sentence))
        passages.extend(_new(Passage, (w.text, context)) for w in windows[first:])
    return Evidence(windows, passages)


def _cut(source: int, start: int, text: str) -> list[Window]:
    pieces: list[Window] = []
    offset = 0
    while offset < len(text):
        end = min(len(text), offset + _MAX_WINDOW_CHARS)
        if end < len(text):
            space = text.rfind(" ", offset + _MAX_WINDOW_CHARS // 2, end)
            end = space if space > offset else end
        piece = text[offset:end]
        lead = len(piece) - len(piece.lstrip())
        stripped = piece.strip()
        if stripped:
            pieces.append(
                Window(
                    source, start + offset + lead, start + offset + lead + len(stripped), stripped
                )
            )
        offset = end
    return pieces
