"""Quotas: consumed atomically, a refusal changes nothing, no record means no limit."""

from __future__ import annotations

import pytest

from groundwork.storage.errors import QuotaExceeded
from groundwork.storage.quotas import Charge
from groundwork.storage.stores import Stores
from tests.storage.conftest import FakeClock


def test_given_no_quota_when_consumed_then_it_is_unlimited_and_usage_is_counted(
    stores: Stores,
) -> None:
    for _ in range(3):
        stores.quotas.consume("u1", credits=2)

    quota = stores.quotas.get_quota("u1")
    assert (quota.questions_left, quota.credits_left) == (None, None)
    assert (quota.questions_used, quota.credits_used) == (3, 6)


def test_given_a_question_limit_when_exhausted_then_the_next_consume_is_refused(
    stores: Stores,
) -> None:
    stores.quotas.set_quota("u1", questions_left=2, credits_left=None)
    stores.quotas.consume("u1")
    stores.quotas.consume("u1")

    with pytest.raises(QuotaExceeded) as refused:
        stores.quotas.consume("u1")

    assert refused.value.reason == "questions"
    quota = stores.quotas.get_quota("u1")
    assert (quota.questions_left, quota.questions_used) == (0, 2)


def test_given_enough_questions_but_few_credits_when_consumed_then_nothing_changes(
    stores: Stores,
) -> None:
    stores.quotas.set_quota("u1", questions_left=10, credits_left=5)
    before = stores.quotas.consume("u1", credits=4)

    with pytest.raises(QuotaExceeded) as refused:
        stores.quotas.consume("u1", credits=2)

    assert refused.value.reason == "credits"
    assert stores.quotas.get_quota("u1") == before
    assert (before.questions_left, before.credits_left) == (9, 1)


def test_given_a_consume_when_refunded_then_the_quota_is_as_before(stores: Stores) -> None:
    start = stores.quotas.set_quota("u1", questions_left=3, credits_left=10)

    stores.quotas.consume("u1", credits=4)
    stores.quotas.refund("u1", credits=4)

    assert stores.quotas.get_quota("u1") == start


def test_given_usage_when_the_limit_is_lifted_then_usage_is_kept(stores: Stores) -> None:
    stores.quotas.set_quota("u1", questions_left=1, credits_left=1)
    stores.quotas.consume("u1", credits=1)

    quota = stores.quotas.set_quota("u1", questions_left=None, credits_left=None)

    assert (quota.questions_left, quota.credits_left) == (None, None)
    assert (quota.questions_used, quota.credits_used) == (1, 1)
    stores.quotas.consume("u1", credits=100)


def test_given_a_charge_when_consumed_again_by_a_retry_then_it_is_taken_once(
    stores: Stores,
) -> None:
    """Given a run that was charged for a request and died, when a retry that took the request
    over consumes under the same request id, then nothing more is taken."""
    start = stores.quotas.set_quota("u1", questions_left=5, credits_left=10)

    stores.quotas.consume("u1", credits=2, charge=Charge("r1", "run-1", 3600))
    again = stores.quotas.consume("u1", credits=2, charge=Charge("r1", "run-2", 3600))
    other = stores.quotas.consume("u1", credits=2, charge=Charge("r2", "run-3", 3600))

    assert (again.questions_left, again.credits_left, again.questions_used) == (4, 8, 1)
    assert (other.questions_left, other.credits_left) == (3, 6)
    assert stores.quotas.get_quota("u2").questions_used == 0
    assert start.questions_left == 5


def test_given_a_charge_taken_over_when_the_old_run_refunds_then_nothing_is_given_back(
    stores: Stores,
) -> None:
    start = stores.quotas.set_quota("u1", questions_left=5, credits_left=10)
    stores.quotas.consume("u1", credits=2, charge=Charge("r1", "run-1", 3600))
    charged = stores.quotas.consume("u1", credits=2, charge=Charge("r1", "run-2", 3600))

    assert stores.quotas.refund("u1", credits=2, charge=Charge("r1", "run-1", 3600)) == charged
    assert stores.quotas.refund("u1", credits=2, charge=Charge("r1", "run-2", 3600)) == start
    assert stores.quotas.refund("u1", credits=2, charge=Charge("r1", "run-2", 3600)) == start
    # Refunded, the charge is forgotten: the next run of the request is charged again.
    again = stores.quotas.consume("u1", credits=2, charge=Charge("r1", "run-3", 3600))
    assert (again.questions_left, again.credits_left) == (4, 8)


def test_given_a_refused_charge_when_the_quota_allows_it_later_then_it_is_charged(
    stores: Stores,
) -> None:
    stores.quotas.set_quota("u1", questions_left=0, credits_left=None)
    with pytest.raises(QuotaExceeded):
        stores.quotas.consume("u1", charge=Charge("r1", "run-1", 3600))
    stores.quotas.set_quota("u1", questions_left=1, credits_left=None)

    charged = stores.quotas.consume("u1", charge=Charge("r1", "run-2", 3600))

    assert (charged.questions_left, charged.questions_used) == (0, 1)


def test_given_an_expired_charge_when_the_request_id_comes_again_then_it_is_charged(
    stores: Stores, clock: FakeClock
) -> None:
    stores.quotas.consume("u1", charge=Charge("r1", "run-1", 60))
    clock.advance(61)

    assert stores.quotas.consume("u1", charge=Charge("r1", "run-2", 60)).questions_used == 2
