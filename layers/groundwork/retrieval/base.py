"""The retrieval port: cards in, ranked cards out, filtered inside the search."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

if TYPE_CHECKING:
    from collections.abc import Sequence

    from groundwork.domain.cards import Card, Hit


class SearchFilter(BaseModel):
    """What a search may return; every set field narrows it."""

    collections: list[str] = Field(default_factory=list)
    source_ids: list[str] | None = None
    card_ids: list[str] | None = None
    tags: list[str] | None = None


class Retriever(ABC):
    """An index of cards."""

    @abstractmethod
    def upsert(self, cards: Sequence[Card]) -> None:
        """Add cards, replacing any with the same id."""

    @abstractmethod
    def delete_source(self, source_id: str) -> int:
        """Remove every card of a source; returns how many were removed."""

    @abstractmethod
    def search(self, query: str, where: SearchFilter, k: int) -> list[Hit]:
        """The ``k`` best cards for ``query`` among those ``where`` allows, best first."""

    @abstractmethod
    def count(self, collection: str | None = None) -> int:
        """How many cards the index holds, in one collection or in all."""
