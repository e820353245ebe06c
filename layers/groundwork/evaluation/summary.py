"""An evaluation's figures: per question set, the shares that matter and the refusal curve."""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence

    from groundwork.evaluation.run import Outcome

#: The thresholds of the refusal curve.
CURVE = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7)


@dataclass(frozen=True)
class Totals:
    """Shares are None where no question counts towards them."""

    questions: int
    answerable: int
    absent: int
    #: Answerable questions (with an expected fragment) whose first sentence holds one; a
    #: refusal counts as not answering.
    first_answers: float | None
    #: Answerable questions (with an expected source) whose first citation is one.
    source_first: float | None
    #: Cited sentences of the delivered answers that their passage supports.
    citation_precision: float | None
    #: Questions the documents do not answer that were refused.
    absent_refused: float | None
    #: Answerable questions that were refused.
    false_refusals: float | None
    median_words: float | None
    first_token_p50_ms: float | None
    first_token_p95_ms: float | None
    #: AUROC of the confidence between questions answered right and the others.
    confidence_auroc: float | None


def share(flags: Sequence[bool]) -> float | None:
    return sum(flags) / len(flags) if flags else None


def percentile(values: Sequence[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(int(len(ordered) * q), len(ordered) - 1)]


def auroc(scores: Sequence[float], labels: Sequence[bool]) -> float | None:
    """The chance that a random positive scores above a random negative (ties: half)."""
    positives = [s for s, y in zip(scores, labels, strict=True) if y]
    negatives = [s for s, y in zip(scores, labels, strict=True) if not y]
    if not positives or not negatives:
        return None
    wins = sum((p > n) + 0.5 * (p == n) for p in positives for n in negatives)
    return wins / (len(positives) * len(negatives))


def totals(outcomes: Sequence[Outcome]) -> Totals:
    answerable = [o for o in outcomes if o.question.answerable]
    absent = [o for o in outcomes if not o.question.answerable]
    answered = [o for o in outcomes if not o.refused]
    cited = sum(o.cited_sentences for o in answered)
    judged = [(o.confidence, o.correct) for o in outcomes if o.correct is not None]
    first_token = [o.first_token_s * 1000 for o in outcomes]
    return Totals(
        questions=len(outcomes),
        answerable=len(answerable),
        absent=len(absent),
        first_answers=share([o.answers for o in answerable if o.answers is not None]),
        source_first=share([o.source_first for o in answerable if o.source_first is not None]),
        citation_precision=sum(o.supported_sentences for o in answered) / cited if cited else None,
        absent_refused=share([o.refused for o in absent]),
        false_refusals=share([o.refused for o in answerable]),
        median_words=statistics.median([o.words for o in answered]) if answered else None,
        first_token_p50_ms=percentile(first_token, 0.5),
        first_token_p95_ms=percentile(first_token, 0.95),
        confidence_auroc=auroc([s for s, _ in judged], [bool(y) for _, y in judged]),
    )


def refusal_curve(
    outcomes: Sequence[Outcome], thresholds: Sequence[float] = CURVE
) -> list[tuple[float, float | None, float | None]]:
    """At each threshold: the share of answerable questions and of absent ones that would be
    refused if every answer whose confidence is below it were."""
    answerable = [o.confidence for o in outcomes if o.question.answerable]
    absent = [o.confidence for o in outcomes if not o.question.answerable]
    return [
        (t, share([c < t for c in answerable]), share([c < t for c in absent])) for t in thresholds
    ]
