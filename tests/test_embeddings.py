"""MiniLM embeddings from the packaged int8 ONNX model."""

from typing import Any

import numpy as np

from groundwork.embeddings.minilm import MiniLMEmbedder


def test_given_sentences_when_embedded_then_vectors_are_unit_length_and_meaningful() -> None:
    embedder = MiniLMEmbedder()

    vectors = embedder.embed(
        [
            "How do I run the test suite?",
            "The tests run with a single command.",
            "Bananas are rich in potassium.",
        ]
    )

    assert vectors.shape == (3, 384)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    related, unrelated = vectors[0] @ vectors[1], vectors[0] @ vectors[2]
    assert related > unrelated + 0.3


def test_given_a_batch_when_embedded_then_each_row_matches_its_text_embedded_alone() -> None:
    embedder = MiniLMEmbedder(batch_size=2)
    texts = ["short", "a much longer sentence about harbours and tides", "mid length text"]

    together = embedder.embed(texts)
    alone = np.vstack([embedder.embed([t]) for t in texts])

    np.testing.assert_allclose(together, alone, atol=1e-4)


class CountingSession:
    """The real onnxruntime session, counting the texts it runs."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.texts = 0

    def run(self, names: list[str], feeds: dict[str, Any]) -> Any:
        self.texts += len(feeds["input_ids"])
        return self.inner.run(names, feeds)


def test_given_a_text_embedded_when_embedded_again_then_the_model_does_not_run_it_twice() -> None:
    embedder = MiniLMEmbedder()
    counting = CountingSession(embedder._session)
    embedder._session = counting
    question = "How many sacraments are there?"

    searched = embedder.embed([question])
    together = embedder.embed([question, "There are seven sacraments.", "Prayer lifts the mind."])

    assert counting.texts == 3
    np.testing.assert_array_equal(together[0], searched[0])
    np.testing.assert_array_equal(
        together[1:],
        MiniLMEmbedder(remember=0).embed(["There are seven sacraments.", "Prayer lifts the mind."]),
    )


def test_given_more_texts_than_it_remembers_then_the_oldest_are_run_again() -> None:
    embedder = MiniLMEmbedder(remember=2)
    counting = CountingSession(embedder._session)
    embedder._session = counting

    embedder.embed(["one text", "two texts", "three texts"])
    embedder.embed(["three texts", "one text"])

    assert counting.texts == 4  # "one text" was forgotten, "three texts" was not


def test_given_texts_of_very_different_lengths_then_each_row_matches_its_text_alone() -> None:
    embedder = MiniLMEmbedder(remember=0)
    texts = ["Tides.", " ".join(["The harbour fills and empties twice a day with the tide."] * 6)]

    together = embedder.embed([*texts, texts[0]])
    alone = np.vstack([embedder.embed([t]) for t in texts])

    np.testing.assert_allclose(together[:2], alone, atol=1e-5)
    np.testing.assert_array_equal(together[2], together[0])
