"""Builds the configured retriever once per settings object."""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

from groundwork.settings import Settings, get_settings

if TYPE_CHECKING:
    from groundwork.retrieval.base import Retriever


@lru_cache(maxsize=4)
def get_retriever(settings: Settings | None = None) -> Retriever:
    settings = settings or get_settings()
    match settings.retrieval:
        case "embedded":
            from groundwork.embeddings.factory import get_embedder, get_index_embedder
            from groundwork.retrieval.embedded import EmbeddedIndex

            # The sentence vectors are the embedded model's, which answers rank them with.
            return EmbeddedIndex(
                settings.index_path,
                get_index_embedder(settings),
                get_embedder(settings),
                terms=settings.latent_terms,
            )
        case "keyword":
            from groundwork.retrieval.keyword import KeywordIndex

            return KeywordIndex(settings.index_path)
        case "opensearch":
            from groundwork.embeddings.factory import get_index_embedder, get_lazy_embedder
            from groundwork.retrieval.opensearch import OpenSearchIndex, connect

            if not settings.opensearch_url:
                raise ValueError("GROUNDWORK_OPENSEARCH_URL is required with opensearch retrieval")
            service = None if settings.opensearch_auth == "none" else settings.opensearch_auth
            # The index and pipeline are created by the first write (or `groundwork
            # setup-index`), never here: functions that only search need no write rights.
            return OpenSearchIndex(
                connect(
                    settings.opensearch_url, region=settings.opensearch_region, service=service
                ),
                # Loaded on the first search or write: listing and counting need no model.
                get_index_embedder(settings, lazy=True),
                sentences=get_lazy_embedder(settings),
                index=settings.opensearch_index,
                serverless=settings.opensearch_auth == "aoss",
                engine=settings.opensearch_knn_engine,
                shards=settings.opensearch_shards,
                replicas=settings.opensearch_replicas,
                reindex_dir=settings.data_dir / "reindex",
                read_timeout_s=settings.opensearch_timeout_s,
                terms=settings.latent_terms,
            )
