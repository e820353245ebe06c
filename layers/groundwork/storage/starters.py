"""Starters: suggested questions of a collection, set by an admin or proposed at ingest.

Both backends keep a collection's starters in one sort order, ``StarterRecord.sort_key``:
an admin's first (oldest first), then the proposals by rank and source, so that the first
few listed are the best proposal of each source before any source's second.
"""

from __future__ import annotations

import hashlib
import secrets
import time
from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, Field

if TYPE_CHECKING:
    from collections.abc import Sequence

#: Proposals kept per source at most; DynamoDB clears a source's proposals by these ranks.
MAX_PROPOSALS_PER_SOURCE = 10

Origin = Literal["admin", "proposed"]


class StarterRecord(BaseModel):
    id: str
    collection: str
    text: str
    #: ISO 639-1 code; None when it could not be told.
    language: str | None = None
    #: Set when the starter is about one source.
    source_id: str | None = None
    #: Tags that every card it was drawn from has (an admin's: given with ``--tags``); a user
    #: granted only part of the collection sees it by these and ``source_id``, as a card.
    tags: list[str] = Field(default_factory=list)
    origin: Origin = "admin"
    #: A proposal's place among its source's proposals, best first.
    rank: int = 0
    created: int = 0

    @property
    def sort_key(self) -> str:
        if self.origin == "admin":
            return f"A#{self.created:012d}#{self.id}"
        return f"P#{self.rank:02d}#{self.source_id or ''}"


def new_starter_id() -> str:
    """Microseconds first, so that an admin's starters added within one second (``created``)
    still list in the order they were added."""
    return f"st_{time.time_ns() // 1000:014x}{secrets.token_hex(4)}"


def proposal_id(collection: str, source_id: str, text: str) -> str:
    """Stable across re-ingests of an unchanged source, so clients may keep it."""
    return "st_" + hashlib.sha256(f"{collection}\0{source_id}\0{text}".encode()).hexdigest()[:16]


class StarterStore(ABC):
    @abstractmethod
    def add(self, starter: StarterRecord) -> StarterRecord:
        """Store an admin's starter; ``AlreadyExists`` when it was stored already (a retried
        call). Ids carry 32 random bits after the time, so they are not checked for collisions."""

    @abstractmethod
    def remove(self, collection: str, starter_id: str) -> bool:
        """Remove one starter of the collection (an admin's or a proposal); False if none."""

    @abstractmethod
    def list_starters(self, collection: str) -> list[StarterRecord]:
        """The collection's starters in ``sort_key`` order."""

    @abstractmethod
    def replace_proposals(
        self, collection: str, source_id: str, starters: Sequence[StarterRecord]
    ) -> None:
        """Make ``starters`` (ranked ``0…``) the source's only proposals, in one transaction;
        an empty list removes them (the source was deleted)."""


def check_proposals(source_id: str, starters: Sequence[StarterRecord]) -> None:
    if len(starters) > MAX_PROPOSALS_PER_SOURCE:
        raise ValueError(f"at most {MAX_PROPOSALS_PER_SOURCE} proposals per source")
    for rank, starter in enumerate(starters):
        if (starter.origin, starter.source_id, starter.rank) != ("proposed", source_id, rank):
            raise ValueError("proposals are ranked 0… and belong to the source replaced")
