"""The learned nearness: e5's dimensions weighed, in the unit's score, only in e5's space."""

from __future__ import annotations

import numpy as np
import pytest

from groundwork.answer.nearness import TOPICAL_WEIGHT, WEIGHTS, nearness
from groundwork.answer.relevance import UNIT_FEATURES, UNIT_WEIGHTS, evidence_of, read
from groundwork.domain.cards import Card
from groundwork.embeddings.models import E5_SMALL, MINILM

TEXT = "Clients pool connections. This reuses the TCP connection for every request."


def card(text: str) -> Card:
    return Card(id="c0", collection="c", source_id="s", url="u#0", text=text)


def test_given_e5_vectors_then_the_nearness_is_their_product_with_each_dimension_weighed() -> None:
    rng = np.random.default_rng(0)
    question, unit = rng.standard_normal((2, E5_SMALL.dimension)).astype(np.float32)

    found = nearness(question, {3: unit}, E5_SMALL)

    assert len(WEIGHTS) == E5_SMALL.dimension
    assert set(found) == {3}
    assert np.isclose(found[3], float(np.sum(question * unit * np.array(WEIGHTS))), rtol=1e-5)


def test_given_the_questions_topic_then_the_units_cosine_with_it_counts_too() -> None:
    rng = np.random.default_rng(1)
    question, topic, unit = rng.standard_normal((3, E5_SMALL.dimension)).astype(np.float32)

    found = nearness(question, {0: unit}, E5_SMALL, topic=topic)

    assert TOPICAL_WEIGHT > 0  # fitted: the nearer the topic, the likelier the answer
    weighed = float(np.sum(question * unit * np.array(WEIGHTS)))
    assert np.isclose(found[0], weighed + TOPICAL_WEIGHT * float(unit @ topic), rtol=1e-5)


def test_given_another_models_vectors_then_there_is_no_nearness() -> None:
    vector = np.ones(MINILM.dimension, dtype=np.float32)

    assert nearness(vector, {0: vector}, MINILM) == {}


def test_given_two_units_alike_but_for_their_nearness_then_the_nearer_one_is_the_answer() -> None:
    # Given one passage of two units, the same cosine for both
    reading = read("Why would I reuse a client?", [card(TEXT)], [1.0])
    similarity = {0: 0.8, 1: 0.8}

    # When only the second is learned to be near the question
    evidence = evidence_of(reading, [card(TEXT)], similarity, [0.0], learned={0: 0.0, 1: 5.0})

    # Then it leads, and its nearness counts with the weight of one
    assert UNIT_FEATURES[-1] == "learned nearness"
    assert UNIT_WEIGHTS[-1] == 1.0
    assert evidence.best is not None
    assert evidence.best.text.startswith("This reuses")
    without = evidence_of(reading, [card(TEXT)], similarity, [0.0], learned={0: 0.0, 1: 0.0})
    nearer = next(c.score for c in evidence.candidates if c.position == 1)
    assert nearer == pytest.approx(next(c.score for c in without.candidates if c.position == 1) + 5)
