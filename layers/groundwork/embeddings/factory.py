"""Builds the configured embedder once per process."""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

from groundwork.settings import Settings, get_settings

if TYPE_CHECKING:
    from groundwork.embeddings.base import Embedder


#: Each model's vector size, known without loading it.
DIMENSIONS = {"minilm": 384}


def get_embedder(settings: Settings | None = None) -> Embedder:
    return _embedder((settings or get_settings()).embeddings)


def get_lazy_embedder(settings: Settings | None = None) -> Embedder:
    """The configured embedder, loaded on the first text it embeds."""
    from groundwork.embeddings.lazy import LazyEmbedder

    kind = (settings or get_settings()).embeddings
    return LazyEmbedder(lambda: _embedder(kind), DIMENSIONS[kind])


# Keyed by the model alone: settings that differ elsewhere (another data directory) share
# one loaded model.
@lru_cache(maxsize=4)
def _embedder(kind: str) -> Embedder:
    from groundwork.embeddings.minilm import MiniLMEmbedder

    match kind:
        case "minilm":
            return MiniLMEmbedder()
    raise ValueError(f"unknown embeddings {kind!r}")
