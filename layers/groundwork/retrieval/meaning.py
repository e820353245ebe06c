"""Ranking by meaning alone (``Retriever.search(..., lexical=False)``), the same on both indexes.

The nearest cards by their own vector are ranked again by that cosine mixed with their best
sentence's: a question asks about one point of a section, and the sentence that makes it is
nearer the question than the whole card is. On the Open Source Guides (``bench.multilingual``),
questions over the English articles, R@5 of the card's cosine alone → the mix: held out (the
weight was chosen on de, es, ja, ru and ar: ``--parts mix``) fr 0.84 → 0.90, it 0.80 → 0.92,
pt 0.86 → 0.86, zh 0.67 → 0.71, hi 0.76 → 0.80.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from groundwork.retrieval.embedded import fuse
from groundwork.retrieval.sentence_vectors import best_sentence

if TYPE_CHECKING:
    from collections.abc import Sequence

    import numpy as np
    import numpy.typing as npt

    from groundwork.domain.cards import Hit

#: The nearest cards ranked again.
DEPTH = 30
#: The card's own cosine in the mix; its best sentence's has the rest.
CARD_WEIGHT = 0.75


def by_meaning(
    question: npt.NDArray[np.float32],
    nearest: Sequence[Hit],
    k: int,
    *,
    sentences: bool = True,
    card_weight: float = CARD_WEIGHT,
) -> list[Hit]:
    """The ``k`` best of ``nearest`` (scored by their card's cosine with ``question``, with their
    stored sentence vectors) by the mix, scored as the fused search scores its vector side
    when no card shares a word: the scale that reading weighs passages by.

    Without ``sentences`` (another model embedded them, as with Bedrock's card vectors: their
    cosine with this question means nothing) the card's cosine alone ranks them."""
    mixed = []
    for hit in nearest:
        best = best_sentence(hit, question) if sentences else None
        best = hit.score if best is None else best
        mixed.append(card_weight * hit.score + (1 - card_weight) * best)
    ranked = []
    for i, score in fuse([], list(enumerate(mixed)))[:k]:
        nearest[i].score = score
        ranked.append(nearest[i])
    return ranked
