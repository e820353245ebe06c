"""Ranking by meaning alone (``Retriever.search(..., lexical=False)``), the same on both indexes.

The nearest cards by their own vector are ranked again by that cosine mixed with two views of
the card sentence by sentence (their vectors are stored with it): the cosine of its sentences'
mean, and its best sentence's, for a question that asks about one point of a section. Across
languages the card read whole and read sentence by sentence err apart. On the Open Source Guides
(``bench.multilingual``), questions over the English articles, R@5 of the card's cosine alone →
the mix: held out (the weights were chosen on de, es, ja, ru and ar: ``--parts mix`` and
``answers``) fr 0.84 → 0.90, it 0.80 → 0.92, pt 0.86 → 0.82, zh 0.67 → 0.76, hi 0.76 → 0.84,
ko 0.78 → 0.86. A card near any question, a hub, is discounted (``retrieval.hubness``), and
the cards' sparse latent terms, where they have them, have a share of the mix
(``retrieval.latent_terms``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from groundwork.retrieval import hubness, latent_terms
from groundwork.retrieval.base import min_max
from groundwork.retrieval.embedded import fuse
from groundwork.retrieval.sentence_vectors import best_and_mean

if TYPE_CHECKING:
    from collections.abc import Sequence

    import numpy.typing as npt

    from groundwork.domain.cards import Hit
    from groundwork.embeddings.base import Embedder, Terms

#: The nearest cards ranked again.
DEPTH = 30
#: The card's own cosine in the mix, and its sentences' mean's; its best sentence's has the rest.
#: A ranking blind to the best sentence finds as many sections but refuses more: the answer's
#: confidence reads the best sentence.
CARD_WEIGHT = 0.5
MEAN_WEIGHT = 0.25


def by_meaning(
    question: npt.NDArray[np.float32],
    nearest: Sequence[Hit],
    k: int,
    *,
    sentences: bool = True,
    card_weight: float = CARD_WEIGHT,
    mean_weight: float = MEAN_WEIGHT,
    terms: Terms | None = None,
    background: npt.NDArray[np.float32] | None = None,
    hub_weight: float = hubness.WEIGHT,
) -> list[Hit]:
    """The ``k`` best of ``nearest`` (scored by their card's cosine with ``question``, with their
    stored sentence vectors) by the mix, scored as the fused search scores its vector side
    when no card shares a word: the scale that reading weighs passages by.

    Without ``sentences`` (another model embedded them, as with Bedrock's card vectors: their
    cosine with this question means nothing) the card's cosine alone ranks them. With the
    ``background`` of the model, when every card carries its vector, each loses ``hub_weight``
    times its hubness."""
    mixed = []
    for hit in nearest:
        read = best_and_mean(hit, question) if sentences else None
        best, mean = (hit.score, hit.score) if read is None else read
        rest = 1 - card_weight - mean_weight
        mixed.append(card_weight * hit.score + mean_weight * mean + rest * best)
    if background is not None and nearest and all(hit.vector for hit in nearest):
        vectors = np.stack([np.frombuffer(hit.vector or b"", dtype="<f4") for hit in nearest])
        hubs = hubness.hubness(vectors, background)
        mixed = [score - hub_weight * float(hub) for score, hub in zip(mixed, hubs, strict=True)]
    if terms is not None:
        shared = latent_terms.shared(terms, nearest)
        mixed = [
            (1 - latent_terms.WEIGHT) * cosines + latent_terms.WEIGHT * concepts
            for cosines, concepts in zip(min_max(mixed), min_max(shared), strict=True)
        ]
    ranked = []
    for i, score in fuse([], list(enumerate(mixed)))[:k]:
        nearest[i].score = score
        ranked.append(nearest[i])
    return ranked


def rank_nearest(
    embedder: Embedder,
    sentences: Embedder,
    query: str,
    question: npt.NDArray[np.float32],
    nearest: Sequence[Hit],
    k: int,
) -> list[Hit]:
    """:func:`by_meaning` as both indexes rank their nearest cards: the cards' sentences read
    when ``sentences`` (what embedded them) has the question's model, their latent terms when
    every card has them, the hub discount when the model's background ships."""
    return by_meaning(
        question,
        nearest,
        k,
        sentences=sentences.model == embedder.model,
        terms=latent_terms.asked(embedder, query, nearest),
        background=hubness.background(embedder.model),
    )
