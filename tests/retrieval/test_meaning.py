"""Ranking by meaning alone: the nearest cards again, by their own cosine, their sentences'
mean's and their best sentence's."""

from __future__ import annotations

import numpy as np

from groundwork.domain.cards import Hit
from groundwork.retrieval.base import KEYWORD_WEIGHT
from groundwork.retrieval.meaning import by_meaning
from groundwork.retrieval.sentence_vectors import encode
from tests.retrieval.conftest import card

DIMENSION = 8
QUESTION = np.eye(DIMENSION, dtype=np.float32)[0]


def at_cosine(cosine: float) -> np.ndarray:
    """A unit vector whose cosine with QUESTION is ``cosine``."""
    vector = np.zeros(DIMENSION, dtype=np.float32)
    vector[0], vector[1] = cosine, np.sqrt(1 - cosine**2)
    return vector


def hit(id_: str, cosine: float, sentences: list[float]) -> Hit:
    vectors = np.stack([at_cosine(c) for c in sentences])
    blob = encode([f"{id_} sentence {i}" for i in range(len(sentences))], vectors)
    return Hit(card=card(id_, f"{id_} text"), score=cosine, sentence_vectors=blob)


def test_given_a_card_whose_sentences_are_nearer_when_ranked_then_it_passes_a_nearer_card() -> None:
    nearest = [hit("whole", 0.80, [0.50, 0.40]), hit("sentences", 0.78, [0.85, 0.80])]

    ranked = by_meaning(QUESTION, nearest, 2)

    assert [h.card.id for h in ranked] == ["sentences", "whole"]
    # Scored as the fused search scores its vector side: the best its weight, the last 0.
    assert [round(h.score, 3) for h in ranked] == [round(1 - KEYWORD_WEIGHT, 3), 0.0]


def test_given_one_near_sentence_among_far_ones_when_ranked_then_the_card_stays_behind() -> None:
    # The same cosine and the same best sentence: the card whose other sentences are near the
    # question too is the one about it; one near sentence in a card about something else is
    # not enough.
    nearest = [hit("one", 0.80, [0.90, 0.10, 0.10]), hit("all", 0.80, [0.90, 0.85, 0.85])]

    ranked = by_meaning(QUESTION, nearest, 2)

    assert [h.card.id for h in ranked] == ["all", "one"]


def test_given_cards_without_sentence_vectors_when_ranked_then_their_own_cosine_counts() -> None:
    nearest = [
        Hit(card=card("far", "far"), score=0.3),
        Hit(card=card("near", "near"), score=0.9),
        Hit(card=card("middle", "middle"), score=0.6),
    ]

    ranked = by_meaning(QUESTION, nearest, 2)

    assert [h.card.id for h in ranked] == ["near", "middle"]


def test_given_sentences_of_another_model_when_ranked_then_the_cards_cosine_alone_counts() -> None:
    nearest = [hit("whole", 0.80, [0.50, 0.40]), hit("sentence", 0.78, [0.30, 0.95])]

    ranked = by_meaning(QUESTION, nearest, 2, sentences=False)

    assert [h.card.id for h in ranked] == ["whole", "sentence"]
