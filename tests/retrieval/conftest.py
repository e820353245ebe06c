"""A word-hashing embedder, so hybrid search is tested without loading a model."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from groundwork.domain.cards import Card
from groundwork.embeddings.base import Embedder, EmbeddingModel, Role
from groundwork.retrieval.embedded import EmbeddedIndex
from groundwork.text.terms import terms


class HashingEmbedder(Embedder):
    """Each content word is a fixed random direction; a text is their normalised sum."""

    model = EmbeddingModel("word-hashing", 64)

    def __init__(self) -> None:
        self.calls = 0

    def embed(self, texts: Sequence[str], *, role: Role = "passage") -> npt.NDArray[np.float32]:
        self.calls += 1
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for row, text in enumerate(texts):
            for term in terms(text):
                seed = int.from_bytes(hashlib.sha256(term.encode()).digest()[:4], "little")
                out[row] += np.random.default_rng(seed).standard_normal(self.dimension)
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return (out / np.clip(norms, 1e-9, None)).astype(np.float32)


def card(id_: str, text: str, **fields: object) -> Card:
    values: dict[str, object] = {"collection": "main", "source_id": "s1", "url": f"doc#{id_}"}
    values.update(fields)
    return Card(id=id_, text=text, **values)  # type: ignore[arg-type]


@pytest.fixture
def embedder() -> HashingEmbedder:
    return HashingEmbedder()


@pytest.fixture
def index(tmp_path: Path, embedder: HashingEmbedder) -> EmbeddedIndex:
    return EmbeddedIndex(tmp_path / "index.sqlite3", embedder)


@pytest.fixture(scope="session")
def opensearch_client() -> Any:
    """A client of the live node; outside CI, without one, the tests that need it skip."""
    url = os.environ.get("GROUNDWORK_OPENSEARCH_URL")
    if not url:
        reason = "GROUNDWORK_OPENSEARCH_URL is not set: run `eval $(scripts/services.sh up)`"
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI runs every live suite; {reason}")
        pytest.skip(reason)
    from groundwork.retrieval.opensearch import connect

    auth = os.environ.get("GROUNDWORK_OPENSEARCH_AUTH", "none")
    return connect(
        url,
        region=os.environ.get("GROUNDWORK_OPENSEARCH_REGION"),
        service=None if auth == "none" else auth,
    )
