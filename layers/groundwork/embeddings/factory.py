"""Builds the configured embedder once per process."""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

from groundwork.embeddings.models import MODELS
from groundwork.settings import Settings, get_settings

if TYPE_CHECKING:
    from groundwork.embeddings.base import Embedder, EmbeddingModel


def embedding_model(settings: Settings | None = None) -> EmbeddingModel:
    return MODELS[(settings or get_settings()).embeddings]


def get_embedder(settings: Settings | None = None) -> Embedder:
    return _embedder((settings or get_settings()).embeddings)


def get_lazy_embedder(settings: Settings | None = None) -> Embedder:
    """The configured embedder, loaded on the first text it embeds."""
    from groundwork.embeddings.lazy import LazyEmbedder

    settings = settings or get_settings()
    return LazyEmbedder(lambda: _embedder(settings.embeddings), embedding_model(settings))


def bare_embedder(kind: str) -> Embedder:
    """A new embedder of ``kind``, remembering nothing (benchmarks time the model itself)."""
    match kind:
        case "e5":
            from groundwork.embeddings.e5 import E5Embedder

            return E5Embedder()
        case "minilm":
            from groundwork.embeddings.minilm import MiniLMEmbedder

            return MiniLMEmbedder()
    raise ValueError(f"unknown embeddings {kind!r}")


# Keyed by the model alone: settings that differ elsewhere (another data directory) share
# one loaded model.
@lru_cache(maxsize=4)
def _embedder(kind: str) -> Embedder:
    from groundwork.embeddings.memory import RememberingEmbedder

    return RememberingEmbedder(bare_embedder(kind))
