"""How many lines of a batch are done, counted exactly once each, with no item every worker
writes (DynamoDB: a string partition key ``id``, TTL attribute ``expiration``).

- The batch item ``{batch}`` holds what the enqueue function knows: the number of shards, its
  checkpoint (how far it has read, sent and rejected) while it runs, then ``total`` and
  ``sealed``; and ``shards_closed``, then ``assembled``.
- Each finished line leaves a marker ``{batch}#{line}``, put on the condition that it does not
  exist, in one transaction with the increment of its shard's ``done``: a redelivered message
  (SQS delivers at least once) is never counted twice.
- Lines are dealt to the shards ``{batch}#s{n}`` in turn (the n-th line read to shard
  n mod shards), so concurrent workers meet on an item only as often as two of them pick the
  same of many shards at once, and the counts of a million lines are spread over them.
- Sealing gives each shard its total. Whoever then finds a shard's ``done`` at its total, the
  last worker or the enqueue function, closes it: a conditional update (only one closing wins)
  in one transaction with the batch's ``shards_closed``, the batch item's only write per shard.
  Whoever closes the last shard has counted the batch's last line: the batch is complete.

DynamoDB cancels a transaction that meets another one on an item (``TransactionConflict``).
Nothing of it is written, so it is tried again after a random pause that grows with each
attempt ("full jitter"): workers that collided do not collide again in step.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

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


@dataclass(frozen=True)
class Checkpoint:
    """How far an enqueueing got: the lines before byte ``offset`` are sent or rejected."""

    offset: int = 0
    lines: int = 0  # non-blank lines read
    enqueued: int = 0
    rejected: int = 0


@dataclass(frozen=True)
class BatchState:
    shards: int
    checkpoint: Checkpoint
    sealed: bool


def shard_of(index: int, shards: int) -> int:
    """The shard that counts the ``index``-th line read (0-based)."""
    return index % shards


def shard_total(shard: int, shards: int, lines: int) -> int:
    """How many of ``lines`` lines :func:`shard_of` deals to ``shard``."""
    return lines // shards + (1 if shard < lines % shards else 0)


class Progress:
    def __init__(self, dynamodb: Any, table: str, backoff: Backoff | None = None) -> None:
        self._db = dynamodb
        self._table = table
        self._backoff = backoff or Backoff()

    def start(self, batch: str, shards: int) -> BatchState:
        """Record a new batch, or return the state an earlier attempt left."""
        try:
            self._db.put_item(
                TableName=self._table,
                Item={
                    "id": {"S": batch},
                    "shards": {"N": str(shards)},
                    "shards_closed": {"N": "0"},
                    "expiration": {"N": str(_expiration())},
                },
                ConditionExpression="attribute_not_exists(id)",
            )
        except self._db.exceptions.ConditionalCheckFailedException:
            item = self._item(batch)
            state = BatchState(
                shards=int(item["shards"]["N"]),
                checkpoint=Checkpoint(
                    **{
                        name: int(item[f"checkpoint_{name}"]["N"])
                        for name in ("offset", "lines", "enqueued", "rejected")
                        if f"checkpoint_{name}" in item
                    }
                ),
                sealed="total" in item,
            )
        else:
            state = BatchState(shards=shards, checkpoint=Checkpoint(), sealed=False)
        # The shards exist before any line is sent (again, if an attempt stopped before): a
        # line counts only into a shard that exists, so a message of a batch never started
        # fails instead of counting.
        for shard in range(state.shards):
            self._db.update_item(
                TableName=self._table,
                Key={"id": {"S": _shard_key(batch, shard)}},
                UpdateExpression="SET expiration = :expiration ADD done :zero",
                ExpressionAttributeValues={
                    ":expiration": {"N": str(_expiration())},
                    ":zero": {"N": "0"},
                },
            )
        return state

    def save(self, batch: str, checkpoint: Checkpoint) -> None:
        """Remember how far enqueueing got, for an attempt after this one to go on from."""
        self._db.update_item(
            TableName=self._table,
            Key={"id": {"S": batch}},
            UpdateExpression=(
                "SET checkpoint_offset = :offset, checkpoint_lines = :lines, "
                "checkpoint_enqueued = :enqueued, checkpoint_rejected = :rejected"
            ),
            ExpressionAttributeValues={
                ":offset": {"N": str(checkpoint.offset)},
                ":lines": {"N": str(checkpoint.lines)},
                ":enqueued": {"N": str(checkpoint.enqueued)},
                ":rejected": {"N": str(checkpoint.rejected)},
            },
        )

    def seal(self, batch: str, lines: int) -> bool:
        """Every line is read: give each shard its total and close those already done. True
        when this closed the batch's last shard (every line was done already)."""
        shards = int(self._item(batch)["shards"]["N"])
        self._db.update_item(
            TableName=self._table,
            Key={"id": {"S": batch}},
            UpdateExpression="SET #total = :total",
            ExpressionAttributeNames={"#total": "total"},
            ExpressionAttributeValues={":total": {"N": str(lines)}},
        )
        complete = False
        for shard in range(shards):
            self._db.update_item(
                TableName=self._table,
                Key={"id": {"S": _shard_key(batch, shard)}},
                UpdateExpression="SET #total = :total",
                ExpressionAttributeNames={"#total": "total"},
                ExpressionAttributeValues={":total": {"N": str(shard_total(shard, shards, lines))}},
            )
            complete = self._close(batch, shard, shards) or complete
        return complete

    def mark_done(self, batch: str, line: int, shard: int, shards: int) -> bool:
        """Count ``line`` done, once however often it is reported, retrying conflicts. True
        when the batch is complete (the caller has its results assembled): on the count that
        closed the last shard, and on every redelivery after it, so that a caller that stopped
        before passing the news on is given it again."""
        counted = self._retried(lambda last: self._count(batch, line, shard, last=last))
        if not counted:  # a redelivery: the line's count was made before
            item = self._item(batch)
            if int(item["shards_closed"]["N"]) >= int(item["shards"]["N"]):
                return True
        return self._close(batch, shard, shards)

    def assembled(self, batch: str) -> bool:
        return "assembled" in self._item(batch)

    def mark_assembled(self, batch: str) -> None:
        self._db.update_item(
            TableName=self._table,
            Key={"id": {"S": batch}},
            UpdateExpression="SET assembled = :yes",
            ExpressionAttributeValues={":yes": {"BOOL": True}},
        )

    def _count(self, batch: str, line: int, shard: int, *, last: bool) -> bool | None:
        """One try: True counted, False counted before, None met another (try again)."""
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
                            "Key": {"id": {"S": _shard_key(batch, shard)}},
                            "UpdateExpression": "ADD done :one",
                            "ConditionExpression": "attribute_exists(id)",
                            "ExpressionAttributeValues": {":one": {"N": "1"}},
                        }
                    },
                ]
            )
        except self._db.exceptions.TransactionCanceledException as exc:
            codes = _reasons(exc)
            if codes[:1] != ["ConditionalCheckFailed"] and codes[1:2] == ["ConditionalCheckFailed"]:
                raise LookupError(f"batch {batch} was never started") from exc
            return _cancelled(exc, last=last)
        return True

    def _close(self, batch: str, shard: int, shards: int) -> bool:
        """Close ``shard`` if its every line is done; True when that closed the batch's last."""
        found = self._db.get_item(
            TableName=self._table,
            Key={"id": {"S": _shard_key(batch, shard)}},
            ConsistentRead=True,
        ).get("Item", {})
        if "total" not in found or "closed" in found:
            return False
        if int(found["done"]["N"]) < int(found["total"]["N"]):
            return False
        if not self._retried(lambda last: self._close_once(batch, shard, last=last)):
            return False  # another closed it meanwhile
        return int(self._item(batch)["shards_closed"]["N"]) >= shards

    def _close_once(self, batch: str, shard: int, *, last: bool) -> bool | None:
        try:
            self._db.transact_write_items(
                TransactItems=[
                    {
                        "Update": {
                            "TableName": self._table,
                            "Key": {"id": {"S": _shard_key(batch, shard)}},
                            "UpdateExpression": "SET closed = :yes",
                            "ConditionExpression": (
                                "attribute_exists(#total) AND done >= #total "
                                "AND attribute_not_exists(closed)"
                            ),
                            "ExpressionAttributeNames": {"#total": "total"},
                            "ExpressionAttributeValues": {":yes": {"BOOL": True}},
                        }
                    },
                    {
                        "Update": {
                            "TableName": self._table,
                            "Key": {"id": {"S": batch}},
                            "UpdateExpression": "ADD shards_closed :one",
                            "ConditionExpression": "attribute_exists(id)",
                            "ExpressionAttributeValues": {":one": {"N": "1"}},
                        }
                    },
                ]
            )
        except self._db.exceptions.TransactionCanceledException as exc:
            return _cancelled(exc, last=last)
        return True

    def _retried(self, attempt: Callable[[bool], bool | None]) -> bool:
        for number in range(self._backoff.attempts):
            if number:
                self._backoff.pause(number - 1)
            outcome = attempt(number == self._backoff.attempts - 1)
            if outcome is not None:
                return outcome
        raise AssertionError("the last attempt raises or answers")

    def _item(self, batch: str) -> dict[str, Any]:
        found = self._db.get_item(
            TableName=self._table, Key={"id": {"S": batch}}, ConsistentRead=True
        )
        if "Item" not in found:
            raise LookupError(f"batch {batch} was never started")
        item: dict[str, Any] = found["Item"]
        return item


def _shard_key(batch: str, shard: int) -> str:
    return f"{batch}#s{shard}"


def _cancelled(exc: Any, *, last: bool) -> Literal[False] | None:
    """A cancelled transaction whose first item is the line or shard: False when its condition
    failed (done already), None to try again; raised when it cannot be retried."""
    codes = _reasons(exc)
    if codes[:1] == ["ConditionalCheckFailed"]:
        return False
    if last or not _RETRYABLE_REASONS & set(codes):
        raise exc
    return None


def _reasons(exc: Any) -> list[str | None]:
    return [reason.get("Code") for reason in exc.response.get("CancellationReasons", [])]


def _expiration() -> int:
    return int(time.time()) + RETENTION_SECONDS
