"""Per-user question limits and credits, consumed atomically."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from groundwork.storage.records import QuotaRecord


@dataclass(frozen=True)
class Charge:
    """What one question is charged under, so that it is charged once however many runs answer
    it: a retry that takes over the ``request_id`` of a run that died (``kill -9``) finds the
    charge taken and takes nothing.

    ``owner`` is the run holding the charge; only it may refund. The mark is kept
    ``keep_seconds``, as long as the completed request is (then the id may be a new question).
    """

    request_id: str
    owner: str
    keep_seconds: int


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
    def consume(
        self, user_id: str, *, questions: int = 1, credits: int = 0, charge: Charge | None = None
    ) -> QuotaRecord:
        """Take both at once or nothing: ``QuotaExceeded`` leaves the record unchanged.

        With ``charge``: at most once per ``charge.request_id``. When that charge is already
        taken, nothing is taken again and the charge passes to ``charge.owner``.
        """

    @abstractmethod
    def refund(
        self, user_id: str, *, questions: int = 1, credits: int = 0, charge: Charge | None = None
    ) -> QuotaRecord:
        """Give back what a failed generation consumed.

        With ``charge``: only while ``charge.owner`` holds it (a run that was taken over gives
        back nothing), and the charge is forgotten, so that a retry is charged again.
        """
