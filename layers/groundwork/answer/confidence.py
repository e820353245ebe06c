"""How likely the answer answers the question: the one figure a user can threshold.

``answerability`` (:mod:`groundwork.answer.answerability`) says whether the documents answer
the question; ``confidence`` says whether *this answer* does: a logistic model over the
answerability's probability (as a log-odds) and how clearly the composer's first unit won
(its score, its margin over the second, its share of the candidates' softmax). It is fitted on
the real-question benchmark with each corpus held out in turn, where "answers" means the
answer's first sentence holds the expected fact (``python -m bench.fit_reading`` prints the
held-out AUROC, the refusal curves and the coefficients shipped here).

The extractive composer refuses below :data:`THRESHOLD`, and a refusal says why
(:data:`RefusalReason`, after Vertex AI's answer skipped reasons): no relevant passage (nothing
retrieved, or nothing that shares the question's words), passages that do not answer, or an
answer not grounded in them (a model's sentences whose citations the verifier removed).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Literal

from groundwork.answer.answerability import features as signals
from groundwork.answer.answerability import probability

if TYPE_CHECKING:
    from groundwork.answer.relevance import Evidence

RefusalReason = Literal["no_relevant_passage", "passages_do_not_answer", "answer_not_grounded"]

#: intercept, then one weight per feature, in the order of :func:`features`
COEFFICIENTS = (
    -7.932, 0.471, 0.159, 0.133, 2.917, -0.099, -0.371, 1.176, 1.884, -0.272, -0.276, 0.227,
    -1.263,
)  # fmt: skip
#: Below this the extractive composer refuses: 9.5% of the fitting corpora's answerable
#: questions score below it (held out, 10% of those asked with precise retrieval).
THRESHOLD = 0.115
#: A passage sharing less of the question's weighted words than this is not relevant at all.
RELEVANT_COVERAGE = 0.15


def features(evidence: Evidence) -> tuple[float, ...]:
    """The model's inputs, in the order of :data:`COEFFICIENTS` (after the intercept)."""
    documents = min(max(probability(evidence), 1e-4), 1 - 1e-4)
    scores = [c.score for c in evidence.candidates]
    odds = math.log(documents / (1 - documents))
    if not scores:
        return (odds, 0.0, 0.0, 0.0, *signals(evidence))
    top = scores[0]
    share = 1 / sum(math.exp(s - top) for s in scores)
    margin = top - scores[1] if len(scores) > 1 else 1.0
    return (odds, top, min(margin, 5.0), share, *signals(evidence))


def confidence(evidence: Evidence, coefficients: tuple[float, ...] = COEFFICIENTS) -> float:
    """0–1: how likely the evidence's best unit answers the question; 1 for a question about a
    document that a card's metadata answers."""
    if evidence.card_answer is not None:
        return 1.0
    intercept, *weights = coefficients
    z = intercept + sum(w * x for w, x in zip(weights, features(evidence), strict=True))
    return round(1 / (1 + math.exp(-max(min(z, 30.0), -30.0))), 4)


def answers(score: float) -> bool:
    return score >= THRESHOLD


def refusal_reason(evidence: Evidence) -> RefusalReason:
    """Why the documents give no answer, for a refusal."""
    if not evidence.candidates or evidence.passage_coverage < RELEVANT_COVERAGE:
        return "no_relevant_passage"
    return "passages_do_not_answer"
