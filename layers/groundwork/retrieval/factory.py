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
        case "keyword":
            from groundwork.retrieval.keyword import KeywordIndex

            return KeywordIndex(settings.index_path)
