"""Per-user question limits and credits, consumed atomically."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from groundwork.storage.records import QuotaRecord


class QuotaStore(ABC):
    """A user without a quota record has no limits; usage is counted all the same."""

    @abstractmethod
    def set_quota(
        self, user_id: str, *, questions_left: int | None, credits_left: int | None
    ) -> QuotaRecord:
        """Set what is left (None: unlimited); usage counters are kept."""

    @abstractmethod
    def get_quota(self, user_id: str) -> QuotaRecord: ...

    @abstractmethod
    def consume(self, user_id: str, *, questions: int = 1, credits: int = 0) -> QuotaRecord:
        """Take both at once or nothing: ``QuotaExceeded`` leaves the record unchanged."""

    @abstractmethod
    def refund(self, user_id: str, *, questions: int = 1, credits: int = 0) -> QuotaRecord:
        """Give back what a failed generation consumed."""
