"""Workers of one batch count into its shards. DynamoDB cancels a transaction that meets
another one in flight on an item (``TransactionConflict``); moto runs transactions one after
another and never does. ``Conflicts`` makes moto's transactions behave as DynamoDB's: each holds
its items a moment, and one that starts while another holds an item is cancelled the way
DynamoDB cancels it. Under it, concurrent workers must still count every line once, leave
nothing in the dead-letter queue and write the summary; and no item takes every line's write."""

from __future__ import annotations

import json
import threading
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from types import SimpleNamespace
from typing import Any

import boto3
import pytest

from groundwork.batch.clients import get_pipeline
from groundwork.batch.progress import Backoff, Progress
from tests.serverless.conftest import (
    INPUT_BUCKET,
    OUTPUT_BUCKET,
    Aws,
    drain,
    read_json,
    run_function,
    s3_event,
)

EVENT = "before-call.dynamodb.TransactWriteItems"


class Conflicts:
    """A transaction holds its items for ``hold_s`` as it starts (DynamoDB's window for
    conflicts); one that starts while another holds an item is cancelled as DynamoDB cancels it.
    The hold ends before moto runs the transaction, so contention does not starve a worker on a
    slow machine: it only makes transactions that start together collide."""

    def __init__(self, hold_s: float = 0.01) -> None:
        self.hold_s = hold_s
        self.cancelled = 0
        self._held: set[str] = set()
        self._lock = threading.Lock()

    def before(self, params: dict[str, Any], **_: Any) -> Any:
        actions = json.loads(params["body"])["TransactItems"]
        keys = [
            json.dumps(next(iter(a.values())).get("Key") or a["Put"]["Item"]["id"]) for a in actions
        ]
        with self._lock:
            busy = [key in self._held for key in keys]
            if any(busy):
                self.cancelled += 1
                reasons = [
                    {
                        "Code": "TransactionConflict",
                        "Message": "Transaction is ongoing for the item",
                    }
                    if conflict
                    else {"Code": "None"}
                    for conflict in busy
                ]
                error = {"Code": "TransactionCanceledException", "Message": "Transaction cancelled"}
                return SimpleNamespace(status_code=400, headers={}), {
                    "Error": error,
                    "CancellationReasons": reasons,
                    "ResponseMetadata": {"HTTPStatusCode": 400},
                }
            self._held.update(keys)
        time.sleep(self.hold_s)
        with self._lock:
            self._held.difference_update(keys)
        return None


@pytest.fixture
def conflicts(aws: Aws) -> Iterator[Conflicts]:
    """Conflicts in every DynamoDB client made from boto3's default session from now on."""
    simulated = Conflicts()
    events = boto3._get_default_session().events
    events.register(EVENT, simulated.before, unique_id="test-conflicts")
    get_pipeline.cache_clear()
    yield simulated
    events.unregister(EVENT, unique_id="test-conflicts")
    get_pipeline.cache_clear()


def test_given_workers_counting_at_once_when_transactions_conflict_then_each_line_counts_once(
    aws: Aws, conflicts: Conflicts
) -> None:
    progress = Progress(boto3.client("dynamodb"), aws.table)
    lines, shards = 80, 2
    progress.start("batch-1", shards)

    with ThreadPoolExecutor(max_workers=8) as pool:
        completes = list(
            pool.map(
                lambda line: progress.mark_done("batch-1", line, line % shards, shards),
                range(lines),
            )
        )
    redelivered = progress.mark_done("batch-1", 7, 1, shards)  # counts nothing
    sealed = progress.seal("batch-1", lines)

    items = {i["id"]["S"]: i for i in aws.dynamodb.scan(TableName=aws.table)["Items"]}
    assert conflicts.cancelled > 0
    assert [int(items[f"batch-1#s{n}"]["done"]["N"]) for n in range(shards)] == [40, 40]
    # Nothing was complete before the seal gave the shards their totals; the seal closed both.
    assert not any(completes)
    assert not redelivered
    assert sealed
    assert items["batch-1"]["shards_closed"] == {"N": "2"}
    assert progress.mark_done("batch-1", 7, 1, shards)  # after it, a redelivery passes it on


def test_given_a_batch_of_many_lines_then_no_item_takes_every_lines_write(aws: Aws) -> None:
    client = boto3.client("dynamodb")
    writes: Counter[str] = Counter()

    def count(params: dict[str, Any], **_: Any) -> None:
        request = json.loads(params["body"])
        for action in request.get("TransactItems", [request]):
            item = next(iter(action.values())) if "TransactItems" in request else action
            key = (item.get("Key") or item.get("Item"))["id"]["S"]
            writes[key] += 1

    for operation in ("TransactWriteItems", "UpdateItem", "PutItem"):
        client.meta.events.register(f"before-call.dynamodb.{operation}", count)
    progress = Progress(client, aws.table)
    lines, shards = 200, 8
    progress.start("batch-3", shards)
    for line in range(lines):
        progress.mark_done("batch-3", line, line % shards, shards)
    progress.seal("batch-3", lines)

    per_shard = lines // shards
    # A shard: created, each of its lines, its total, its closing.
    assert max(writes[f"batch-3#s{n}"] for n in range(shards)) == per_shard + 3
    # The batch item: created, its total, one write per shard closed; never one per line.
    assert writes["batch-3"] == 2 + shards


def test_given_a_conflict_that_never_ends_when_attempts_run_out_then_it_is_raised(
    aws: Aws,
) -> None:
    client = boto3.client("dynamodb")
    held = Conflicts()
    held._held.add(json.dumps({"id": {"S": "batch-2#s0"}}))  # another transaction never finishes
    client.meta.events.register(EVENT, held.before)
    pauses: list[float] = []
    progress = Progress(client, aws.table, Backoff(attempts=4, sleep=pauses.append))
    progress.start("batch-2", 1)

    with pytest.raises(client.exceptions.TransactionCanceledException):
        progress.mark_done("batch-2", 0, 0, 1)

    assert held.cancelled == 4
    assert len(pauses) == 3
    assert all(0 <= pause <= 0.025 * 2**n for n, pause in enumerate(pauses))


def test_given_concurrent_workers_when_a_batch_runs_then_no_line_is_dead_lettered(
    aws: Aws, conflicts: Conflicts
) -> None:
    # Long enough that a message one worker holds is not received by another meanwhile.
    aws.sqs.set_queue_attributes(QueueUrl=aws.queue_url, Attributes={"VisibilityTimeout": "60"})
    facts = [{"factText": "Titanic is a 1997 film directed by James Cameron."}]
    body = "".join(
        json.dumps(
            {"id": f"q{n}", "answerCandidate": "James Cameron directed Titanic.", "facts": facts}
        )
        + "\n"
        for n in range(60)
    )
    aws.s3.put_object(Bucket=INPUT_BUCKET, Key="batches/many.jsonl", Body=body.encode())
    run_function("batch-enqueue", s3_event(INPUT_BUCKET, "batches/many.jsonl"))

    def worker(event: dict[str, Any]) -> Any:
        return run_function("batch-worker", event)

    with ThreadPoolExecutor(max_workers=4) as pool:
        list(pool.map(lambda _: drain(aws, worker, assemble=False), range(4)))
    drain(aws, worker)  # the assembly the last line sent

    dead = aws.sqs.get_queue_attributes(
        QueueUrl=aws.dead_letter_url, AttributeNames=["ApproximateNumberOfMessages"]
    )["Attributes"]["ApproximateNumberOfMessages"]
    summary = read_json(aws, OUTPUT_BUCKET, "results/batches/many.jsonl/summary.json")
    assert conflicts.cancelled > 0
    assert dead == "0"
    assert (summary["total"], summary["succeeded"], summary["failed"]) == (60, 60, 0)
