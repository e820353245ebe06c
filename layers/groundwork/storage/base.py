"""The storage port."""

from __future__ import annotations

from abc import ABC, abstractmethod

from pydantic import BaseModel


class SourceRecord(BaseModel):
    """A document of a collection, as last ingested."""

    id: str
    collection: str
    title: str | None
    location: str
    content_hash: str
    cards: int


class Storage(ABC):
    """Durable state of the service."""

    @abstractmethod
    def put_source(self, source: SourceRecord) -> None:
        """Create or replace a source."""

    @abstractmethod
    def get_source(self, source_id: str) -> SourceRecord | None: ...

    @abstractmethod
    def delete_source(self, source_id: str) -> bool:
        """Remove a source; False when there was none."""

    @abstractmethod
    def list_sources(self, collection: str) -> list[SourceRecord]: ...
