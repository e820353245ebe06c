"""Idempotency records: one owner per request, takeover after the lease, a saved answer."""

from __future__ import annotations

import pytest

from groundwork.storage.errors import NotOwner
from groundwork.storage.records import ClaimOutcome, Completion, IdempotencyStatus
from groundwork.storage.stores import Stores
from tests.storage.conftest import FakeClock

LEASE = 30


def test_given_a_new_request_id_when_claimed_then_the_caller_owns_an_in_progress_record(
    stores: Stores, clock: FakeClock
) -> None:
    claim = stores.idempotency.claim("u1", "r1", "worker-a", lease_seconds=LEASE)

    assert claim.outcome is ClaimOutcome.CLAIMED
    assert claim.record.status is IdempotencyStatus.IN_PROGRESS
    assert claim.record.expiration == int(clock.now) + LEASE
    assert stores.idempotency.get("u1", "r1") == claim.record


def test_given_a_running_generation_when_a_duplicate_claims_then_it_sees_it_in_progress(
    stores: Stores,
) -> None:
    stores.idempotency.claim("u1", "r1", "worker-a", lease_seconds=LEASE)

    duplicate = stores.idempotency.claim("u1", "r1", "worker-b", lease_seconds=LEASE)
    own_retry = stores.idempotency.claim("u1", "r1", "worker-a", lease_seconds=LEASE)
    other_user = stores.idempotency.claim("u2", "r1", "worker-b", lease_seconds=LEASE)

    assert duplicate.outcome is ClaimOutcome.IN_PROGRESS
    assert duplicate.record.owner == "worker-a"
    assert own_retry.outcome is ClaimOutcome.CLAIMED
    assert other_user.outcome is ClaimOutcome.CLAIMED


def test_given_a_completed_request_when_retried_then_the_saved_answer_comes_back(
    stores: Stores, clock: FakeClock
) -> None:
    stores.idempotency.claim("u1", "r1", "worker-a", lease_seconds=LEASE)
    stores.idempotency.complete(
        Completion(
            user_id="u1",
            request_id="r1",
            owner="worker-a",
            response={"text": "42"},
            retention_seconds=3600,
        )
    )

    clock.advance(LEASE + 1)
    retry = stores.idempotency.claim("u1", "r1", "worker-b", lease_seconds=LEASE)

    assert retry.outcome is ClaimOutcome.COMPLETE
    assert retry.record.response == {"text": "42"}
    clock.advance(3600)
    assert stores.idempotency.get("u1", "r1") is None
    again = stores.idempotency.claim("u1", "r1", "worker-b", lease_seconds=LEASE)
    assert again.outcome is ClaimOutcome.CLAIMED


def test_given_an_owner_that_died_when_its_lease_expires_then_a_retry_takes_over(
    stores: Stores, clock: FakeClock
) -> None:
    stores.idempotency.claim("u1", "r1", "dead-worker", lease_seconds=LEASE)

    clock.advance(LEASE)
    takeover = stores.idempotency.claim("u1", "r1", "worker-b", lease_seconds=LEASE)

    assert takeover.outcome is ClaimOutcome.CLAIMED
    assert takeover.record.owner == "worker-b"
    late = Completion(user_id="u1", request_id="r1", owner="dead-worker", response={"t": "x"})
    with pytest.raises(NotOwner):
        stores.idempotency.complete(late)
    with pytest.raises(NotOwner):
        stores.idempotency.renew("u1", "r1", "dead-worker", lease_seconds=LEASE)
    assert stores.idempotency.release("u1", "r1", "dead-worker") is False
    record = stores.idempotency.get("u1", "r1")
    assert record is not None
    assert (record.owner, record.status) == ("worker-b", IdempotencyStatus.IN_PROGRESS)


def test_given_a_long_generation_when_the_owner_renews_then_the_lease_is_extended(
    stores: Stores, clock: FakeClock
) -> None:
    stores.idempotency.claim("u1", "r1", "worker-a", lease_seconds=LEASE)

    clock.advance(LEASE - 1)
    stores.idempotency.renew("u1", "r1", "worker-a", lease_seconds=LEASE)
    clock.advance(LEASE - 1)

    duplicate = stores.idempotency.claim("u1", "r1", "worker-b", lease_seconds=LEASE)
    assert duplicate.outcome is ClaimOutcome.IN_PROGRESS


def test_given_a_failed_generation_when_released_then_a_retry_generates_again(
    stores: Stores,
) -> None:
    stores.idempotency.claim("u1", "r1", "worker-a", lease_seconds=LEASE)

    assert stores.idempotency.release("u1", "r1", "worker-b") is False
    assert stores.idempotency.release("u1", "r1", "worker-a") is True

    retry = stores.idempotency.claim("u1", "r1", "worker-b", lease_seconds=LEASE)
    assert retry.outcome is ClaimOutcome.CLAIMED
