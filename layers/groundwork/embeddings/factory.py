"""Builds the configured embedders once per process.

Two roles: the embedded model (:func:`get_embedder`), with which answers rank sentences and
which embeds the sentence vectors stored with each card, and the passage index's embedder
(:func:`get_index_embedder`), which is the same model unless ``GROUNDWORK_EMBEDDINGS=bedrock``
hands the passages and their questions to Amazon Bedrock.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

from groundwork.embeddings.models import BEDROCK_MODELS, MODELS
from groundwork.settings import Settings, get_settings

if TYPE_CHECKING:
    from groundwork.embeddings.base import Embedder, EmbeddingModel


def embedding_model(settings: Settings | None = None) -> EmbeddingModel:
    """The model of the passage index's vectors."""
    settings = settings or get_settings()
    if settings.embeddings == "bedrock":
        return BEDROCK_MODELS[settings.bedrock_embedding_model]
    return MODELS[settings.embeddings]


def embedded_kind(settings: Settings | None = None) -> str:
    """The embedded model's kind (``e5``, ``minilm``)."""
    settings = settings or get_settings()
    if settings.embeddings == "bedrock":
        # With a cloud model for the index, answers keep ranking sentences with the default
        # embedded model: the answerability check was fitted on its similarities, and an
        # answer compares 16 sentences, a round trip each way if Bedrock embedded them
        # (docs/retrieval.md, Bedrock embeddings).
        default: str = Settings.model_fields["embeddings"].default
        return default
    return settings.embeddings


def get_embedder(settings: Settings | None = None) -> Embedder:
    """The embedded model: answers rank sentences with it, and each card's sentence vectors
    are its."""
    return _embedder(embedded_kind(settings))


def get_lazy_embedder(settings: Settings | None = None) -> Embedder:
    """The embedded model, loaded on the first text it embeds."""
    from groundwork.embeddings.lazy import LazyEmbedder

    kind = embedded_kind(settings)
    return LazyEmbedder(lambda: _embedder(kind), MODELS[kind])


def get_index_embedder(settings: Settings | None = None, *, lazy: bool = False) -> Embedder:
    """The embedder of the passage index's vectors and of the questions searched for;
    ``lazy``: the embedded model is loaded on its first text (a Bedrock embedder makes its
    client, and imports boto3, on its first call anyway)."""
    settings = settings or get_settings()
    if settings.embeddings == "bedrock":
        return _bedrock(settings.bedrock_embedding_model, settings.bedrock_region)
    return get_lazy_embedder(settings) if lazy else get_embedder(settings)


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


@lru_cache(maxsize=4)
def _bedrock(model_id: str, region: str | None) -> Embedder:
    from groundwork.embeddings.bedrock import BedrockEmbedder

    return BedrockEmbedder(model_id, region=region)
