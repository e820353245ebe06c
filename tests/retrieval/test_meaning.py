"""Ranking by meaning alone: the nearest cards again, by their own cosine, their sentences'
mean's and their best sentence's, and the latent terms they share with the question."""

from __future__ import annotations

import numpy as np

from groundwork.domain.cards import Hit
from groundwork.retrieval import latent_terms
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


def terms(*indexes: int) -> tuple[np.ndarray, np.ndarray]:
    return np.array(indexes, dtype=np.int32), np.ones(len(indexes), dtype=np.float32)


def with_terms(id_: str, cosine: float, *indexes: int) -> Hit:
    return Hit(card=card(id_, id_), score=cosine, latent_terms=latent_terms.encode(terms(*indexes)))


def test_given_a_card_sharing_the_questions_terms_when_ranked_then_it_passes_a_near_one() -> None:
    """The terms have their share of the ranking, not all of it: they decide between cards
    the cosines put close together, not against a card the cosines put far ahead."""
    asked = terms(3, 7, 11)

    def close() -> list[Hit]:  # with one more card, so the scale is not two points
        return [
            with_terms("nearer", 0.80, 1, 2),
            with_terms("sharing", 0.79, 3, 7),
            with_terms("middle", 0.70, 1),
        ]

    apart = [
        with_terms("nearest", 0.80, 1, 2),
        with_terms("far", 0.60, 3, 7, 11),
        with_terms("middle", 0.70, 1),
    ]

    ranked_close = by_meaning(QUESTION, close(), 3, terms=asked)
    ranked_apart = by_meaning(QUESTION, apart, 3, terms=asked)
    blind = by_meaning(QUESTION, close(), 3)

    assert [h.card.id for h in ranked_close] == ["sharing", "nearer", "middle"]
    assert [h.card.id for h in ranked_apart] == ["nearest", "middle", "far"]
    assert [h.card.id for h in blind] == ["nearer", "sharing", "middle"]


def test_given_terms_when_encoded_then_they_round_trip_in_four_bytes_each() -> None:
    indexes = np.array([16_383, 0, 512], dtype=np.int32)
    weights = np.array([2.5, 0.125, 1.0], dtype=np.float32)

    blob = latent_terms.encode((indexes, weights))
    read_indexes, read_weights = latent_terms.decode(blob)

    assert len(blob) == 12
    np.testing.assert_array_equal(read_indexes, indexes)
    np.testing.assert_allclose(read_weights, weights, rtol=1e-3)


def toward(cosine: float, axis: int) -> np.ndarray:
    """A unit vector at ``cosine`` with QUESTION, the rest of its length along ``axis``."""
    vector = np.zeros(DIMENSION, dtype=np.float32)
    vector[0], vector[axis] = cosine, np.sqrt(1 - cosine**2)
    return vector


def with_vector(id_: str, vector: np.ndarray) -> Hit:
    return Hit(card=card(id_, id_), score=float(vector[0]), vector=vector.astype("<f4").tobytes())


#: Everyday sentences, all along the sixth axis.
BACKGROUND = np.stack([toward(0.0, 5)] * 12)


def test_given_a_card_near_everyday_sentences_when_ranked_then_a_topical_one_passes() -> None:
    # The hub is nearer the question, but as near everyday sentences too: near anything.
    nearest = [with_vector("hub", toward(0.95, 5)), with_vector("topic", toward(0.90, 2))]

    plain = by_meaning(QUESTION, [h.model_copy() for h in nearest], 2)
    discounted = by_meaning(QUESTION, nearest, 2, background=BACKGROUND)

    assert [h.card.id for h in plain] == ["hub", "topic"]
    assert [h.card.id for h in discounted] == ["topic", "hub"]


def test_given_a_card_without_its_vector_when_ranked_then_no_card_is_discounted() -> None:
    """A card's hubness is read from its own vector; discounting some cards and not others
    would rank them on two scales."""
    nearest = [with_vector("hub", toward(0.95, 5)), Hit(card=card("unknown", "?"), score=0.9)]

    ranked = by_meaning(QUESTION, nearest, 2, background=BACKGROUND)

    assert [h.card.id for h in ranked] == ["hub", "unknown"]
