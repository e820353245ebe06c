"""The background the search by meaning discounts hubs against: everyday sentences, shipped as
the vectors the embedded model gives them."""

from __future__ import annotations

import numpy as np
import pytest

from groundwork.embeddings.e5 import E5Embedder
from groundwork.embeddings.models import E5_SMALL, MINILM, TITAN_V2
from groundwork.retrieval import hubness


def test_given_the_shipped_background_when_the_model_embeds_its_sentences_then_they_agree() -> None:
    """Fails when the model's weights change: ``scripts/background_vectors.py`` writes them
    again."""
    shipped = hubness.background(E5_SMALL)
    assert shipped is not None

    embedded = E5Embedder().embed(hubness.sentences(), role="query")

    assert shipped.shape == (200, E5_SMALL.dimension)
    assert np.min(np.sum(shipped * embedded, axis=1)) > 0.999


def test_given_a_model_without_a_background_then_no_card_is_discounted() -> None:
    assert hubness.background(MINILM) is None
    assert hubness.background(TITAN_V2) is None


def test_given_cards_when_measured_then_a_card_near_more_sentences_is_more_of_a_hub() -> None:
    background = np.eye(4, dtype=np.float32)[[1] * hubness.NEIGHBOURS + [2] * 3]
    cards = np.array([[0.6, 0.8, 0.0, 0.0], [0.6, 0.0, 0.8, 0.0]], dtype=np.float32)

    near_many, near_few = hubness.hubness(cards, background)

    # Its nearest sentences are the ten along its axis; the other card's, three and then none.
    assert near_many == pytest.approx(0.8)
    assert near_few == pytest.approx(0.8 * 3 / hubness.NEIGHBOURS)
