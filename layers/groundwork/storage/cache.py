"""The response cache: the saved answer for a key built from what determines the answer."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pydantic import JsonValue

    from groundwork.storage.records import CacheEntry


class ResponseCache(ABC):
    @abstractmethod
    def get(self, key: str) -> CacheEntry | None:
        """The entry, unless missing or expired (expiry is checked here, not left to TTL)."""

    @abstractmethod
    def put(self, key: str, response: dict[str, JsonValue], ttl_seconds: int) -> CacheEntry:
        """Create or replace the entry (``bypass_cache`` replaces a fresh one too)."""

    @abstractmethod
    def delete(self, key: str) -> bool: ...
