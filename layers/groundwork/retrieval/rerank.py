"""The rerank of ``precise`` search, the same on both indexes: the fused top candidates gain
how much of the question's weight each covers, and how near its best sentence is.

Term weights are inverse document frequencies over the candidates themselves, so a word every
candidate shares counts little and the word that tells them apart counts most.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from groundwork.retrieval.base import min_max
from groundwork.retrieval.sentence_vectors import best_sentence
from groundwork.text.terms import terms

if TYPE_CHECKING:
    from collections.abc import Sequence

    import numpy as np
    import numpy.typing as npt

    from groundwork.domain.cards import Card, Hit

#: How many fused candidates the precise rerank looks at.
RERANK_DEPTH = 30
#: Weight of the query-term coverage of a passage (fused scores are 0–1).
COVERAGE_WEIGHT = 0.5
#: Weight of the nearness of a passage's best sentence to the question; chosen with the
#: keyword weight (``retrieval.base.KEYWORD_WEIGHT``).
SENTENCE_WEIGHT = 0.25


def coverage(query: str, cards: Sequence[Card]) -> list[float]:
    """For each card, the IDF-weighted share (0–1) of the query's content terms it contains."""
    wanted = set(terms(query))
    if not wanted or not cards:
        return [0.0] * len(cards)
    present = [wanted & set(terms(f"{card.heading or ''} {card.text}")) for card in cards]
    frequency = {t: sum(t in p for p in present) for t in wanted}
    weight = {t: math.log(1 + len(cards) / (1 + frequency[t])) for t in wanted}
    total = sum(weight.values())
    return [sum(weight[t] for t in p) / total for p in present]


def rerank(
    query: str,
    hits: list[Hit],
    question: npt.NDArray[np.float32] | None = None,
    *,
    sentence_weight: float = SENTENCE_WEIGHT,
    coverage_weight: float = COVERAGE_WEIGHT,
) -> list[Hit]:
    """Adds how much of the question's weight each passage covers and, given the ``question``
    embedded by the model of the hits' stored sentence vectors, how near their best sentence
    is to it (min-max over the candidates: a question asks about one point of a passage, and
    the sentence that makes it says so in any language, where the words the coverage counts
    are the question's own); sorts again."""
    cover = coverage(query, [hit.card for hit in hits])
    nearest = [0.0] * len(hits)
    if question is not None:
        best = [best_sentence(hit, question) for hit in hits]
        scaled = iter(min_max([b for b in best if b is not None]))
        nearest = [0.0 if b is None else next(scaled) for b in best]
    for hit, share, near in zip(hits, cover, nearest, strict=True):
        hit.score += coverage_weight * share + sentence_weight * near
    return sorted(hits, key=lambda hit: -hit.score)
