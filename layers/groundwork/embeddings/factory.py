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
    """The embedded model: answers rank sentences with it, and it embeds the passage index
    unless a cloud model does (:func:`get_index_embedder`)."""
    return _embedder(_embedded_kind(settings or get_settings()))


def get_index_embedder(settings: Settings | None = None) -> Embedder:
    """The embedder of the passage index's vectors, its questions' included."""
    settings = settings or get_settings()
    if settings.embeddings == "bedrock":
        return _bedrock(settings.bedrock_embedding_model, settings.bedrock_region)
    return get_embedder(settings)


def get_lazy_embedder(settings: Settings | None = None) -> Embedder:
    """The index's embedder, loaded on the first text it embeds."""
    from groundwork.embeddings.lazy import LazyEmbedder

    settings = settings or get_settings()
    if settings.embeddings == "bedrock":
        return get_index_embedder(settings)  # it makes its client on its first call
    kind = _embedded_kind(settings)
    return LazyEmbedder(lambda: _embedder(kind), DIMENSIONS[kind])


def _embedded_kind(settings: Settings) -> str:
    # With a cloud model for the index, answers keep ranking sentences with the default
    # embedded model: the answerability check was fitted on its similarities, and an answer
    # compares 16 sentences (docs/retrieval.md, Bedrock embeddings).
    if settings.embeddings == "bedrock":
        default: str = Settings.model_fields["embeddings"].default
        return default
    return settings.embeddings


# Keyed by the model alone: settings that differ elsewhere (another data directory) share
# one loaded model.
@lru_cache(maxsize=4)
def _embedder(kind: str) -> Embedder:
    from groundwork.embeddings.minilm import MiniLMEmbedder

    match kind:
        case "minilm":
            return MiniLMEmbedder()
    raise ValueError(f"unknown embeddings {kind!r}")


@lru_cache(maxsize=4)
def _bedrock(model_id: str, region: str | None) -> Embedder:
    from groundwork.embeddings.bedrock import BedrockEmbedder

    return BedrockEmbedder(model_id, region=region)
