"""Builds the configured embedder once per process."""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

from groundwork.settings import Settings, get_settings

if TYPE_CHECKING:
    from groundwork.embeddings.base import Embedder


@lru_cache(maxsize=4)
def get_embedder(settings: Settings | None = None) -> Embedder:
    settings = settings or get_settings()
    from groundwork.embeddings.minilm import MiniLMEmbedder

    match settings.embeddings:
        case "minilm":
            return MiniLMEmbedder()
