"""Do the documents answer the question? A calibrated probability from three signals.

A logistic model over the best candidate sentence's similarity to the question, its keyword
coverage, and the best passage's coverage of the question's words. The coefficients were fitted
on SQuAD 2.0 dev (half of its articles, unanswerable questions included, plus questions asked
where their article is not indexed) with article-level cross-validation:
``python -m bench.fit_answerability`` prints them and the cross-validated figures.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence

    from groundwork.answer.relevance import Evidence
    from groundwork.domain.cards import Card

#: intercept, best similarity, best sentence's coverage, best passage's coverage
COEFFICIENTS = (-3.670, 5.571, 1.290, -0.944)
#: Below this the documents are taken not to answer: the fitting data's answerable questions
#: score below it one time in ten. Held out by article, it refuses 10% of the answerable
#: questions, 21% of the unanswerable ones and all those whose article is not indexed.
THRESHOLD = 0.29


def features(evidence: Evidence) -> tuple[float, float, float]:
    best = evidence.best
    if best is None:
        return (0.0, 0.0, evidence.passage_coverage)
    similarity = best.similarity
    if evidence.beyond_embedder:
        # The embedder reads English: in another language the cosine of a question and its
        # answer runs low, so the sentence's share of the question's words stands in for it
        # when that is higher (the model was fitted on English, where the two go together).
        similarity = max(similarity, best.coverage)
    return (similarity, best.coverage, evidence.passage_coverage)


def probability(evidence: Evidence) -> float:
    """0–1: how likely the passages answer the question the evidence was gathered for; 1 for
    a question about a document that a card's metadata answers."""
    if evidence.card_answer is not None:
        return 1.0
    intercept, *weights = COEFFICIENTS
    z = intercept + sum(w * x for w, x in zip(weights, features(evidence), strict=True))
    return round(1 / (1 + math.exp(-z)), 4)


def answerability(question: str, passages: Sequence[Card]) -> float:
    """0–1: how likely ``passages`` answer ``question``; uses the configured embedder."""
    from groundwork.answer.relevance import gather
    from groundwork.embeddings.factory import get_embedder

    return probability(gather(question, passages, get_embedder()))


def answers(score: float) -> bool:
    return score >= THRESHOLD
