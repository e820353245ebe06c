"""The verification hook: does a passage support a sentence of the answer?

The answer pipeline asks a :class:`CitationVerifier` about every sentence it writes and moves
or removes markers by the verdict. :class:`LexicalVerifier` is the built-in one; a grounding
engine plugs in behind the same protocol.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from groundwork.text.terms import terms

if TYPE_CHECKING:
    from collections.abc import Sequence

    from groundwork.domain.cards import Card

_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")


@dataclass(frozen=True)
class Verdict:
    """How well the passages support one sentence.

    ``score`` is 0–1; ``supporting`` holds the zero-based indices of the passages that
    support the sentence, best first (empty when none does). A sentence that states nothing
    to check ("Here is what I found.") is not ``checkable`` and counts for no score.
    """

    score: float
    supporting: tuple[int, ...]
    checkable: bool = True


class CitationVerifier(Protocol):
    def verify(self, sentence: str, passages: Sequence[Card]) -> Verdict:
        """Judge ``sentence`` (markers removed) against every passage."""


class LexicalVerifier:
    """Support is content-word coverage: the share of the sentence's terms the passage has.

    The passage's heading and title count as part of it, every number of the sentence must
    appear in the passage (a wrong year is not supported), and a passage supports the
    sentence when it covers at least ``threshold`` of its terms.
    """

    def __init__(self, threshold: float = 0.6) -> None:
        self._threshold = threshold

    def verify(self, sentence: str, passages: Sequence[Card]) -> Verdict:
        wanted = set(terms(sentence))
        if not wanted:
            return Verdict(score=0.0, supporting=(), checkable=False)
        numbers = set(_NUMBER.findall(sentence))
        scores: list[tuple[float, int]] = []
        for index, card in enumerate(passages):
            text = " ".join(filter(None, (card.text, card.heading, card.title)))
            if not numbers <= set(_NUMBER.findall(text)):
                continue
            coverage = len(wanted & set(terms(text))) / len(wanted)
            scores.append((coverage, index))
        scores.sort(key=lambda pair: (-pair[0], pair[1]))
        best = scores[0][0] if scores else 0.0
        supporting = tuple(index for score, index in scores if score >= self._threshold)
        return Verdict(score=best, supporting=supporting)
