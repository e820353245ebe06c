"""Quotas: consumed atomically, a refusal changes nothing, no record means no limit."""

from __future__ import annotations

import pytest

from groundwork.storage.errors import QuotaExceeded
from groundwork.storage.stores import Stores


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
