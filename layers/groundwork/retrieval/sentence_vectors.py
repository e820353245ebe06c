"""The vectors of a card's sentences, computed when the card is written and stored with it.

An answer ranks its passages' sentences by their similarity with the question: with the
sentences' vectors stored beside the card, answering embeds the question alone (the model is
most of the time to an answer's first token). Each unit an answer reads by its vector
(:func:`groundwork.answer.units.embedded`: sentences, list items, table rows) is kept as a
CRC-32 of its text, a scale and
its vector in int8 (``dimension + 8`` bytes; a cosine moves by less than 0.002): a sentence
is found by its text, so passages split differently later only miss the vectors they lack,
which are then embedded. The card's heading is stored the same way, one more sentence for
retrieval's best sentence and sentences' mean (an answer reads units only): a question often
asks what a section's heading names, in other words or another language (docs/retrieval.md,
"A card's heading as one more stored vector").
"""

from __future__ import annotations

import zlib
from typing import TYPE_CHECKING

from groundwork.answer.units import embedded

if TYPE_CHECKING:
    from collections.abc import Sequence

    import numpy as np
    import numpy.typing as npt

    from groundwork.domain.cards import Card, Hit
    from groundwork.embeddings.base import Embedder

#: A sentence's vector by the key of its text.
Known = dict[int, "npt.NDArray[np.float32]"]


def key(sentence: str) -> int:
    return zlib.crc32(sentence.encode())


def stored_sentences(card: Card) -> list[str]:
    """What is embedded for a card beside its own vector: the units an answer reads by their
    vectors, and its heading, which names what the card is about in a few words (a question
    asks about the section as its heading does: "Why do people open source their work?")."""
    units = embedded(card.text)
    if card.heading and card.heading not in units:
        units.append(card.heading)
    return units


def embed_sentences(cards: Sequence[Card], embedder: Embedder) -> list[bytes]:
    """Each card's sentences and heading embedded (as passages, in one call) and encoded."""
    per_card = [stored_sentences(card) for card in cards]
    flat = [s for sentences in per_card for s in sentences]
    vectors = embedder.embed(flat, role="passage") if flat else None
    blobs, start = [], 0
    for sentences in per_card:
        end = start + len(sentences)
        blobs.append(encode(sentences, vectors[start:end]) if vectors is not None else b"")
        start = end
    return blobs


def encode(sentences: Sequence[str], vectors: npt.NDArray[np.float32]) -> bytes:
    if not len(sentences):
        return b""
    import numpy as np

    rows = np.zeros(len(sentences), dtype=_dtype(vectors.shape[1]))
    rows["key"] = [key(s) for s in sentences]
    scale = np.abs(vectors).max(axis=1) / 127
    scale[scale == 0] = 1
    rows["scale"] = scale
    rows["vector"] = np.rint(vectors / scale[:, None]).astype(np.int8)
    return rows.tobytes()


def decode(blob: bytes, dimension: int) -> Known:
    """The vectors of ``blob``, unit length again, by sentence key; nothing for a blob written
    at another dimension."""
    size = _dtype(dimension).itemsize
    if not blob or len(blob) % size:
        return {}
    import numpy as np

    rows = np.frombuffer(blob, dtype=_dtype(dimension))
    vectors = rows["vector"].astype(np.float32) * rows["scale"][:, None]
    vectors /= np.clip(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12, None)
    return dict(zip(rows["key"].tolist(), vectors, strict=True))


def known(hits: Sequence[Hit], dimension: int) -> Known:
    """Every stored sentence vector of ``hits``."""
    found: Known = {}
    for hit in hits:
        if hit.sentence_vectors:
            found.update(decode(hit.sentence_vectors, dimension))
    return found


def best_sentence(hit: Hit, question: npt.NDArray[np.float32]) -> float | None:
    """The cosine of ``hit``'s sentence nearest ``question``; None when it stores none."""
    stored = decode(hit.sentence_vectors or b"", len(question))
    return max((float(vector @ question) for vector in stored.values()), default=None)


def best_and_mean(hit: Hit, question: npt.NDArray[np.float32]) -> tuple[float, float] | None:
    """The cosines with ``question`` of ``hit``'s nearest sentence and of the mean of its
    sentences' vectors (normalised); None when it stores none."""
    stored = decode(hit.sentence_vectors or b"", len(question))
    if not stored:
        return None
    import numpy as np

    vectors = np.stack(list(stored.values()))
    cosines = vectors @ question
    best = float(cosines.max())
    mean = vectors.mean(axis=0)
    norm = float(np.linalg.norm(mean))
    if norm == 0:  # the sentences cancel out: their mean points nowhere
        return best, best
    return best, float(mean @ question) / norm


def _dtype(dimension: int) -> np.dtype[np.void]:
    # numpy is imported where vectors are read or written: the chat and API functions import
    # this module at start (the composer's relevance), and numpy would cost their cold start.
    import numpy as np

    return np.dtype([("key", "<u4"), ("scale", "<f4"), ("vector", "i1", (dimension,))])
