"""The verification hook: does a passage support a sentence of the answer?

The answer pipeline asks a :class:`CitationVerifier` about every sentence it writes and moves
or removes markers by the verdict. :class:`GroundedVerifier` puts the grounding engine behind
that protocol.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple, Protocol

from groundwork.grounding.claims import check_required
from groundwork.grounding.evidence import build_evidence
from groundwork.grounding.model import DEFAULT_CITATION_THRESHOLD, Fact

if TYPE_CHECKING:
    from collections.abc import Sequence

    from groundwork.domain.cards import Card
    from groundwork.grounding.base import Verifier
    from groundwork.grounding.evidence import Evidence


# The pattern of html.unescape's references: a passage's offsets are mapped through it.
_CHARREF = re.compile(r"&(#[0-9]+;?|#[xX][0-9a-fA-F]+;?|[^\t\n\f <&#;]{1,32};?)")


class Span(NamedTuple):
    """A stretch of a passage's text that supports a sentence: character offsets into the
    card's ``text``, end exclusive, and the verifier's score for it."""

    passage: int
    start: int
    end: int
    score: float


@dataclass(frozen=True)
class Verdict:
    """How well the passages support one sentence.

    ``score`` is 0–1; ``supporting`` holds the zero-based indices of the passages that
    support the sentence, best first (empty when none does); ``spans`` the sentences of those
    passages that do, as the verifier chose them. A sentence that states nothing to check
    ("Here is what I found.") is not ``checkable`` and counts for no score.
    """

    score: float
    supporting: tuple[int, ...]
    checkable: bool = True
    spans: tuple[Span, ...] = ()

    def confidence(self, passage: int) -> float:
        """The verifier's score for ``passage``: its best supporting sentence's."""
        return max((s.score for s in self.spans if s.passage == passage), default=self.score)


class CitationVerifier(Protocol):
    def verify(self, sentence: str, passages: Sequence[Card]) -> Verdict:
        """Judge ``sentence`` (markers removed) against every passage."""


class GroundedVerifier:
    """The grounding engine of check grounding judges every sentence of our own answers.

    Each passage is a fact whose title, heading, author and year are its attributes (so "It is
    from 1788." is checked against the cited card's year, and no other's); the sentence is one
    claim. A passage supports the sentence when one of its sentence windows (alone, or with
    a window of another passage) reaches ``threshold``, the check-grounding default for
    citations, so a chat citation means what a check-grounding citation means.
    """

    def __init__(self, verifier: Verifier, threshold: float = DEFAULT_CITATION_THRESHOLD) -> None:
        self._verifier = verifier
        self._threshold = threshold
        self._facts: tuple[Sequence[Card], Evidence, list[list[int] | None]] | None = None

    def verify(self, sentence: str, passages: Sequence[Card]) -> Verdict:
        if not check_required(sentence):
            return Verdict(score=0.0, supporting=(), checkable=False)
        evidence, offsets = self._evidence(passages)
        windows = evidence.passages
        if not windows:
            return Verdict(score=0.0, supporting=())
        (support,) = self._verifier.verify([sentence], windows)
        supporting: list[int] = []
        spans: list[Span] = []
        for window, score in support.passages:
            if score >= self._threshold:
                source = evidence.windows[window].source
                spans += _span(evidence, offsets, window, score)
                if source not in supporting:
                    supporting.append(source)
        # The verifier names the best evidence only: a passage that says the same as the best
        # one supports the sentence too, so each other passage is judged on its own as well.
        for source in range(len(passages)):
            own = [i for i, window in enumerate(evidence.windows) if window.source == source]
            if source in supporting or not own:
                continue
            (alone,) = self._verifier.verify([sentence], [windows[i] for i in own])
            if alone.score >= self._threshold:
                supporting.append(source)
                for i, score in alone.passages:
                    if score >= self._threshold:
                        spans += _span(evidence, offsets, own[i], score)
        return Verdict(support.score, tuple(supporting), spans=tuple(spans))

    def _evidence(self, passages: Sequence[Card]) -> tuple[Evidence, list[list[int] | None]]:
        # An answer's sentences are all checked against the same passages: cut them once.
        if self._facts is None or self._facts[0] is not passages:
            facts = [Fact(card.text, _attributes(card)) for card in passages]
            offsets = [_raw_offsets(card.text) for card in passages]
            self._facts = (passages, build_evidence(facts), offsets)
        return self._facts[1], self._facts[2]


def _span(
    evidence: Evidence, offsets: list[list[int] | None], window: int, score: float
) -> list[Span]:
    """A supporting window as offsets into its card's text as stored (the evidence reads it
    with HTML references decoded, which may shorten it); none when they cannot be mapped."""
    found = evidence.windows[window]
    raw = offsets[found.source]
    if raw is None:
        return [Span(found.source, found.start, found.end, score)]
    if not raw:
        return []
    return [Span(found.source, raw[found.start], raw[found.end], score)]


def _raw_offsets(text: str) -> list[int] | None:
    """For each offset into ``html.unescape(text)`` (and its end), the offset in ``text`` it
    comes from; None when decoding changes nothing, so offsets are the same, and an empty
    list when they cannot be mapped."""
    if "&" not in text:
        return None
    mapping: list[int] = []
    position = 0
    for match in _CHARREF.finditer(text):
        mapping += range(position, match.start())
        mapping += [match.start()] * len(html.unescape(match.group(0)))
        position = match.end()
    mapping += range(position, len(text) + 1)
    decoded = html.unescape(text)
    if decoded == text:
        return None
    # A decoding that the pattern did not foresee (another Python's html module): no offsets
    # rather than wrong ones.
    return mapping if len(mapping) == len(decoded) + 1 else []


def _attributes(card: Card) -> dict[str, str]:
    named = {"title": card.title, "heading": card.heading, "author": card.author, "year": card.year}
    return {key: value for key, value in named.items() if value}
