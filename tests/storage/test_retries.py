"""DynamoDB under injected faults: throttling and timeouts are retried with backoff, and a
request that finally fails leaves no half-written turn."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from botocore.exceptions import ClientError, ConnectTimeoutError, ReadTimeoutError

from groundwork.circuit import Circuit
from groundwork.storage.dynamodb_table import DynamoTable, RetryPolicy
from groundwork.storage.errors import NotOwner, StorageUnavailable
from groundwork.storage.factory import dynamodb_stores
from groundwork.storage.records import (
    ClaimOutcome,
    Completion,
    IdempotencyStatus,
    QuestionRecord,
)
from tests.storage.conftest import FakeClock, new_table


def _client_error(code: str, **extra: Any) -> ClientError:
    return ClientError({"Error": {"Code": code, "Message": code}, **extra}, "Operation")


class FaultyClient:
    """The real client, except that the first ``failures`` calls of ``operation`` raise."""

    def __init__(
        self, client: Any, operation: str, failures: int, fault: Callable[[], Exception]
    ) -> None:
        self._client = client
        self._operation = operation
        self._failures = failures
        self._fault = fault
        self.calls = 0

    def __getattr__(self, name: str) -> Any:
        method = getattr(self._client, name)
        if name != self._operation:
            return method

        def call(**request: Any) -> Any:
            self.calls += 1
            if self.calls <= self._failures:
                raise self._fault()
            return method(**request)

        return call


def _faulty_table(
    moto_client: Any,
    clock: FakeClock,
    operation: str,
    failures: int,
    fault: Callable[[], Exception],
) -> tuple[DynamoTable, FaultyClient, list[float]]:
    table = new_table(moto_client, clock)
    faulty = FaultyClient(moto_client, operation, failures, fault)
    delays: list[float] = []
    retrying = DynamoTable(
        table.name, client=faulty, clock=clock, retry=RetryPolicy(attempts=5, sleep=delays.append)
    )
    return retrying, faulty, delays


def _question(question_id: int) -> QuestionRecord:
    return QuestionRecord(
        id=question_id, conversation_id="c1", question="q", answer_id="a", answer="text", created=0
    )


@pytest.mark.parametrize(
    "fault",
    [
        lambda: _client_error("ProvisionedThroughputExceededException"),
        lambda: _client_error("ThrottlingException"),
        lambda: ReadTimeoutError(endpoint_url="http://dynamodb"),
        lambda: ConnectTimeoutError(endpoint_url="http://dynamodb"),
    ],
    ids=["throughput", "throttling", "read-timeout", "connect-timeout"],
)
def test_given_two_transient_faults_when_claiming_then_the_third_attempt_succeeds(
    moto_client: Any, clock: FakeClock, fault: Callable[[], Exception]
) -> None:
    table, faulty, delays = _faulty_table(moto_client, clock, "put_item", 2, fault)

    claim = dynamodb_stores(table).idempotency.claim("u1", "r1", "worker-a", lease_seconds=30)

    assert claim.outcome is ClaimOutcome.CLAIMED
    assert faulty.calls == 3
    assert len(delays) == 2
    assert all(0 <= d <= RetryPolicy().max_delay for d in delays)


def test_given_a_conflicting_transaction_when_adding_a_question_then_it_is_retried_once_written(
    moto_client: Any, clock: FakeClock
) -> None:
    conflict = _client_error(
        "TransactionCanceledException",
        CancellationReasons=[{"Code": "None"}, {"Code": "TransactionConflict"}],
    )
    table, faulty, _ = _faulty_table(
        moto_client, clock, "transact_write_items", 1, lambda: conflict
    )
    stores = dynamodb_stores(table)
    stores.conversations.create_conversation("c1", "u1")

    stores.conversations.add_question(_question(1))

    assert faulty.calls == 2
    assert [t.selected.id for t in stores.conversations.feed("c1")] == [1]


def test_given_a_validation_error_when_called_then_it_is_not_retried(
    moto_client: Any, clock: FakeClock
) -> None:
    table, faulty, delays = _faulty_table(
        moto_client, clock, "get_item", 1, lambda: _client_error("ValidationException")
    )

    with pytest.raises(ClientError):
        dynamodb_stores(table).cache.get("k")

    assert (faulty.calls, delays) == (1, [])


def test_given_throttling_that_never_ends_when_a_turn_is_written_then_nothing_is_half_written(
    moto_client: Any, clock: FakeClock
) -> None:
    table, faulty, delays = _faulty_table(
        moto_client,
        clock,
        "transact_write_items",
        1000,
        lambda: _client_error("ProvisionedThroughputExceededException"),
    )
    stores = dynamodb_stores(table)
    stores.conversations.create_conversation("c1", "u1")
    stores.idempotency.claim("u1", "r1", "worker-a", lease_seconds=30)
    completion = Completion(user_id="u1", request_id="r1", owner="worker-a", response={"t": "x"})

    with pytest.raises(StorageUnavailable):
        stores.conversations.add_question(_question(1), completion=completion)

    assert faulty.calls == 5
    assert len(delays) == 4
    assert stores.conversations.feed("c1") == []
    assert stores.conversations.get_question("c1", 1) is None
    conversation = stores.conversations.get_conversation("c1")
    assert conversation is not None
    assert conversation.questions == 0
    record = stores.idempotency.get("u1", "r1")
    assert record is not None
    assert (record.status, record.owner) == (IdempotencyStatus.IN_PROGRESS, "worker-a")


def test_given_a_takeover_just_before_the_transaction_then_the_old_owner_writes_nothing(
    moto_client: Any, clock: FakeClock
) -> None:
    table = new_table(moto_client, clock)
    stores = dynamodb_stores(table)
    stores.conversations.create_conversation("c1", "u1")
    stores.idempotency.claim("u1", "r1", "worker-a", lease_seconds=30)

    def take_over() -> Exception:
        # The lease ran out while worker-a generated; worker-b claims between its read and
        # its transaction, and the transaction sent after this must fail its condition.
        clock.advance(31)
        stores.idempotency.claim("u1", "r1", "worker-b", lease_seconds=30)
        return _client_error("ThrottlingException")

    faulty = FaultyClient(moto_client, "transact_write_items", 1, take_over)
    late = dynamodb_stores(
        DynamoTable(table.name, client=faulty, clock=clock, retry=RetryPolicy(sleep=lambda _: None))
    )
    completion = Completion(user_id="u1", request_id="r1", owner="worker-a", response={})

    with pytest.raises(NotOwner):
        late.conversations.add_question(_question(1), completion=completion)

    assert stores.conversations.feed("c1") == []
    record = stores.idempotency.get("u1", "r1")
    assert record is not None
    assert (record.status, record.owner) == (IdempotencyStatus.IN_PROGRESS, "worker-b")


def test_given_the_retry_policy_then_each_delay_is_jittered_under_an_exponential_cap() -> None:
    policy = RetryPolicy(base_delay=0.05, max_delay=2.0)

    for attempt in range(10):
        cap = min(2.0, 0.05 * 2**attempt)
        assert all(0 <= policy.delay(attempt) <= cap for _ in range(20))


class Stopwatch:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_given_a_hung_dynamodb_when_called_then_unavailable_within_the_budget_and_then_at_once(
    moto_client: Any, clock: FakeClock
) -> None:
    # Each attempt waits out botocore's read timeout (0.2 s here) and gets no answer.
    elapsed = Stopwatch()

    def hang() -> Exception:
        elapsed.now += 0.2
        return ReadTimeoutError(endpoint_url="http://dynamodb")

    table = new_table(moto_client, clock)
    faulty = FaultyClient(moto_client, "get_item", 1000, hang)
    policy = RetryPolicy(attempt_timeout=0.2, budget=0.5, sleep=lambda _: None, clock=elapsed)
    cooldown = Circuit(StorageUnavailable, cooldown_s=2.0, clock=elapsed)
    hung = DynamoTable(table.name, client=faulty, clock=clock, retry=policy, circuit=cooldown)

    with pytest.raises(StorageUnavailable):
        hung.get("pk", "sk")
    attempts = faulty.calls
    with pytest.raises(StorageUnavailable) as refused:
        hung.get("pk", "sk")

    assert attempts == 2  # a third could not end within the 0.5 s budget
    assert faulty.calls == attempts  # the open circuit calls nobody
    assert refused.value.retry_after == pytest.approx(2.0)


def test_given_throttling_that_never_ends_then_the_circuit_stays_closed(
    moto_client: Any, clock: FakeClock
) -> None:
    table, faulty, _ = _faulty_table(
        moto_client, clock, "get_item", 5, lambda: _client_error("ThrottlingException")
    )

    with pytest.raises(StorageUnavailable):
        table.get("pk", "sk")

    assert table.get("pk", "sk") is None  # answered at once: a throttled DynamoDB is up
    assert faulty.calls == 6
