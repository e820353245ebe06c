"""How many lines of a batch are done, counted exactly once each, in DynamoDB.

The table has a string partition key ``id`` and TTL attribute ``expiration``. A batch item
holds ``total`` and ``done``; each finished line leaves a marker item ``{batch}#{line}``. The
marker is put on the condition that it does not exist, in one transaction with the increment,
so a redelivered message (SQS delivers at least once) is never counted twice.

Every worker of a batch increments the same item, and DynamoDB cancels a transaction that
meets another one on an item (``TransactionConflict``). Nothing of a cancelled transaction is
written, so it is tried again, after a random pause that grows with each attempt ("full
jitter"): workers that collided do not collide again in step.
"""

from __future__ import annotations

import random
import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable

#: Batch items outlive any retry of their messages; TTL removes them afterwards.
RETENTION_SECONDS = 14 * 24 * 3600

#: Cancellation reasons after which the same transaction may succeed.
_RETRYABLE_REASONS = frozenset({"TransactionConflict", "ThrottlingError"})


class Backoff:
    """Up to ``attempts`` tries; the pause before try n+1 is uniform in [0, base * 2**n],
    at most ``cap`` seconds."""

    def __init__(
        self,
        attempts: int = 12,
        base_s: float = 0.025,
        cap_s: float = 2.0,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.attempts = attempts
        self.base_s = base_s
        self.cap_s = cap_s
        self.sleep = sleep

    def pause(self, attempt: int) -> None:
        self.sleep(random.uniform(0, min(self.cap_s, self.base_s * 2**attempt)))


class Progress:
    def __init__(self, dynamodb: Any, table: str, backoff: Backoff | None = None) -> None:
        self._db = dynamodb
        self._table = table
        self._backoff = backoff or Backoff()

    def start(self, batch: str, total: int) -> bool:
        """Record a new batch; False when it was already fully enqueued (a redelivered event)."""
        try:
            self._db.put_item(
                TableName=self._table,
                Item={
                    "id": {"S": batch},
                    "total": {"N": str(total)},
                    "done": {"N": "0"},
                    "enqueued": {"BOOL": False},
                    "expiration": {"N": str(_expiration())},
                },
                ConditionExpression="attribute_not_exists(id)",
            )
        except self._db.exceptions.ConditionalCheckFailedException:
            # An earlier attempt may have stopped half-way: enqueue again unless it finished;
            # the markers keep the lines sent twice from being counted twice.
            return not self._item(batch)["enqueued"]["BOOL"]
        return True

    def enqueued(self, batch: str) -> None:
        self._db.update_item(
            TableName=self._table,
            Key={"id": {"S": batch}},
            UpdateExpression="SET enqueued = :yes",
            ExpressionAttributeValues={":yes": {"BOOL": True}},
        )

    def mark_done(self, batch: str, line: int) -> None:
        """Count ``line`` done, once however often it is reported, retrying conflicts."""
        for attempt in range(self._backoff.attempts):
            if attempt:
                self._backoff.pause(attempt - 1)
            if self._count(batch, line, last=attempt == self._backoff.attempts - 1):
                return

    def _count(self, batch: str, line: int, *, last: bool) -> bool:
        """One try of the transaction; False when it met another and may be tried again."""
        try:
            self._db.transact_write_items(
                TransactItems=[
                    {
                        "Put": {
                            "TableName": self._table,
                            "Item": {
                                "id": {"S": f"{batch}#{line}"},
                                "expiration": {"N": str(_expiration())},
                            },
                            "ConditionExpression": "attribute_not_exists(id)",
                        }
                    },
                    {
                        "Update": {
                            "TableName": self._table,
                            "Key": {"id": {"S": batch}},
                            "UpdateExpression": "ADD done :one",
                            "ConditionExpression": "attribute_exists(id)",
                            "ExpressionAttributeValues": {":one": {"N": "1"}},
                        }
                    },
                ]
            )
        except self._db.exceptions.TransactionCanceledException as exc:
            codes = [reason.get("Code") for reason in exc.response.get("CancellationReasons", [])]
            if codes[:1] == ["ConditionalCheckFailed"]:
                return True  # counted before: a redelivery
            if codes[1:2] == ["ConditionalCheckFailed"]:
                raise LookupError(f"batch {batch} was never started") from exc
            if last or not _RETRYABLE_REASONS & set(codes):
                raise
            return False
        return True

    def complete(self, batch: str) -> bool:
        item = self._item(batch)
        return int(item["done"]["N"]) >= int(item["total"]["N"])

    def _item(self, batch: str) -> dict[str, Any]:
        found = self._db.get_item(
            TableName=self._table, Key={"id": {"S": batch}}, ConsistentRead=True
        )
        item: dict[str, Any] = found["Item"]
        return item


def _expiration() -> int:
    return int(time.time()) + RETENTION_SECONDS
