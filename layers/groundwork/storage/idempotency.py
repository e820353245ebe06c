"""Idempotency records keyed by a user's ``request_id``: one generation, one saved answer."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING

from groundwork.storage.records import Claim, ClaimOutcome, IdempotencyRecord, IdempotencyStatus

if TYPE_CHECKING:
    from pydantic import JsonValue

    from groundwork.storage.records import Completion


class IdempotencyStore(ABC):
    """A claim is a conditional create: of concurrent duplicates exactly one owns the record.

    An in-progress record carries a lease; once it has expired (its owner died or gave up) the
    next claim takes it over with a new owner, and the old owner can no longer complete it.
    """

    @abstractmethod
    def claim(
        self,
        user_id: str,
        request_id: str,
        owner: str,
        *,
        lease_seconds: int,
        payload_hash: str | None = None,
    ) -> Claim: ...

    @abstractmethod
    def get(self, user_id: str, request_id: str) -> IdempotencyRecord | None:
        """The record, unless missing or expired."""

    @abstractmethod
    def renew(self, user_id: str, request_id: str, owner: str, *, lease_seconds: int) -> None:
        """Extend the owner's lease during a long generation; ``NotOwner`` if it was lost."""

    @abstractmethod
    def complete(self, completion: Completion) -> IdempotencyRecord:
        """Save the answer (without a question: see ``ConversationStore.add_question``).

        Raises ``NotOwner`` when the record is not the caller's in-progress record.
        """

    @abstractmethod
    def release(self, user_id: str, request_id: str, owner: str) -> bool:
        """Delete the owner's in-progress record so that a retry generates again."""


def decide(existing: IdempotencyRecord | None, owner: str, now: int) -> ClaimOutcome:
    """What a claim finds: CLAIMED means the caller may write its own in-progress record."""
    if existing is None or existing.expiration <= now:
        return ClaimOutcome.CLAIMED
    if existing.status is IdempotencyStatus.COMPLETE:
        return ClaimOutcome.COMPLETE
    # The caller's own record: a retry of a claim whose reply was lost.
    return ClaimOutcome.CLAIMED if existing.owner == owner else ClaimOutcome.IN_PROGRESS


def in_progress(
    user_id: str,
    request_id: str,
    owner: str,
    lease_seconds: int,
    payload_hash: str | None,
    now: int,
) -> IdempotencyRecord:
    """The record a successful claim writes: the owner's, until its lease runs out."""
    return IdempotencyRecord(
        user_id=user_id,
        request_id=request_id,
        status=IdempotencyStatus.IN_PROGRESS,
        owner=owner,
        expiration=now + lease_seconds,
        payload_hash=payload_hash,
        created=now,
    )


def claim_of(existing: IdempotencyRecord, owner: str, now: int) -> Claim:
    return Claim(outcome=decide(existing, owner, now), record=existing)


def completed(
    record: IdempotencyRecord, response: dict[str, JsonValue], retention_seconds: int, now: int
) -> IdempotencyRecord:
    return record.model_copy(
        update={
            "status": IdempotencyStatus.COMPLETE,
            "response": response,
            "expiration": now + retention_seconds,
        }
    )
