"""Concurrent duplicates: exactly one winner, on every backend, and across processes."""

from __future__ import annotations

import multiprocessing
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from groundwork.storage.errors import NotOwner, QuotaExceeded
from groundwork.storage.records import ClaimOutcome, Completion, QuestionRecord
from groundwork.storage.sqlite_db import SQLiteDatabase
from groundwork.storage.sqlite_quotas import SQLiteQuotaStore
from groundwork.storage.stores import Stores
from tests.storage.workers import consume_and_claim

THREADS = 20


def _in_threads(task, count: int = THREADS) -> list:  # type: ignore[no-untyped-def]
    with ThreadPoolExecutor(max_workers=count) as pool:
        return list(pool.map(task, range(count)))


def test_given_20_threads_claiming_one_request_id_then_exactly_one_wins(stores: Stores) -> None:
    claims = _in_threads(
        lambda i: stores.idempotency.claim("u1", "r1", f"worker-{i}", lease_seconds=60)
    )

    winners = [c for c in claims if c.outcome is ClaimOutcome.CLAIMED]
    assert len(winners) == 1
    assert {c.record.owner for c in claims} == {winners[0].record.owner}


def test_given_20_threads_consuming_a_quota_of_5_then_exactly_5_succeed(stores: Stores) -> None:
    stores.quotas.set_quota("u1", questions_left=5, credits_left=None)

    def consume(_: int) -> bool:
        try:
            stores.quotas.consume("u1")
        except QuotaExceeded:
            return False
        return True

    results = _in_threads(consume)

    assert results.count(True) == 5
    quota = stores.quotas.get_quota("u1")
    assert (quota.questions_left, quota.questions_used) == (0, 5)


def test_given_20_duplicate_requests_when_each_tries_to_answer_then_one_question_is_stored(
    stores: Stores,
) -> None:
    stores.conversations.create_conversation("c1", "u1")

    def answer(i: int) -> object:
        owner = f"worker-{i}"
        claim = stores.idempotency.claim("u1", "r1", owner, lease_seconds=60)
        if claim.outcome is not ClaimOutcome.CLAIMED:
            return claim.outcome
        question = QuestionRecord(
            id=100 + i,
            conversation_id="c1",
            question="q",
            answer_id=f"a{i}",
            answer="the answer",
            created=0,
        )
        completion = Completion(
            user_id="u1", request_id="r1", owner=owner, response={"text": "the answer"}
        )
        try:
            stores.conversations.add_question(question, completion=completion)
        except NotOwner:
            return "lost"
        return ClaimOutcome.CLAIMED

    outcomes = _in_threads(answer)

    assert outcomes.count(ClaimOutcome.CLAIMED) == 1
    assert len(stores.conversations.feed("c1")) == 1
    record = stores.idempotency.get("u1", "r1")
    assert record is not None
    assert record.response == {"text": "the answer"}


def test_given_10_threads_asking_in_one_conversation_then_every_question_is_one_turn(
    stores: Stores,
) -> None:
    stores.conversations.create_conversation("c1", "u1")

    _in_threads(
        lambda i: stores.conversations.add_question(
            QuestionRecord(
                id=1 + i,
                conversation_id="c1",
                question=f"q{i}",
                answer_id=f"a{i}",
                answer="a",
                created=0,
            )
        ),
        count=10,
    )

    feed = stores.conversations.feed("c1")
    assert sorted(t.selected.id for t in feed) == list(range(1, 11))
    assert [t.selected.seq for t in feed] == list(range(1, 11))
    conversation = stores.conversations.get_conversation("c1")
    assert conversation is not None
    assert conversation.questions == 10


def test_given_4_processes_sharing_one_sqlite_file_then_quota_and_claims_hold(
    tmp_path: Path,
) -> None:
    path = tmp_path / "state.sqlite3"
    SQLiteQuotaStore(SQLiteDatabase(path)).set_quota("u1", questions_left=5, credits_left=None)
    context = multiprocessing.get_context("spawn")

    with context.Pool(4) as pool:
        results = pool.starmap(consume_and_claim, [(str(path), f"p{i}", 3) for i in range(4)])

    assert sum(granted for granted, _ in results) == 5
    assert [won for _, won in results].count(True) == 1
