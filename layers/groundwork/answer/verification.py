"""The verification hook: does a passage support a sentence of the answer?

The answer pipeline asks a :class:`CitationVerifier` about every sentence it writes and moves
or removes markers by the verdict. :class:`GroundedVerifier` puts the grounding engine behind
that protocol.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from groundwork.grounding.claims import check_required
from groundwork.grounding.evidence import build_evidence
from groundwork.grounding.model import DEFAULT_CITATION_THRESHOLD, Fact

if TYPE_CHECKING:
    from collections.abc import Sequence

    from groundwork.domain.cards import Card
    from groundwork.grounding.base import Verifier
    from groundwork.grounding.evidence import Evidence


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
        self._facts: tuple[Sequence[Card], Evidence] | None = None

    def verify(self, sentence: str, passages: Sequence[Card]) -> Verdict:
        if not check_required(sentence):
            return Verdict(score=0.0, supporting=(), checkable=False)
        evidence = self._evidence(passages)
        windows = evidence.passages
        if not windows:
            return Verdict(score=0.0, supporting=())
        (support,) = self._verifier.verify([sentence], windows)
        supporting: list[int] = []
        for window in support.cited(self._threshold):
            source = evidence.windows[window].source
            if source not in supporting:
                supporting.append(source)
        # The verifier names the best evidence only: a passage that says the same as the best
        # one supports the sentence too, so each other passage is judged on its own as well.
        for source in range(len(passages)):
            own = [
                w
                for w, window in zip(windows, evidence.windows, strict=True)
                if window.source == source
            ]
            if source in supporting or not own:
                continue
            (alone,) = self._verifier.verify([sentence], own)
            if alone.score >= self._threshold:
                supporting.append(source)
        return Verdict(score=support.score, supporting=tuple(supporting))

    def _evidence(self, passages: Sequence[Card]) -> Evidence:
        # An answer's sentences are all checked against the same passages: cut them once.
        if self._facts is None or self._facts[0] is not passages:
            facts = [Fact(card.text, _attributes(card)) for card in passages]
            self._facts = (passages, build_evidence(facts))
        return self._facts[1]


def _attributes(card: Card) -> dict[str, str]:
    named = {"title": card.title, "heading": card.heading, "author": card.author, "year": card.year}
    return {key: value for key, value in named.items() if value}
