"""MiniLM embeddings from the packaged int8 ONNX model."""

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
