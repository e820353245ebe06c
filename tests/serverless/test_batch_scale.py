"""Batch grounding made for inputs of a million lines, on small ones: the enqueueing stops at a
checkpoint when its time runs short, or fails half-way, and its retry goes on from the last
checkpoint; the assembly step writes results in parts of a multipart upload and goes on in a
new message when its time runs short. Every line is counted and written once."""

from __future__ import annotations

import dataclasses
import json
import time
from typing import Any

import pytest

from groundwork.batch.assembly import AssembleMessage
from groundwork.batch.clients import get_assembler, get_pipeline
from groundwork.batch.pipeline import EnqueueUnfinished
from tests.serverless.conftest import (
    INPUT_BUCKET,
    OUTPUT_BUCKET,
    Aws,
    drain,
    read_json,
    read_jsonl,
    run_function,
    s3_event,
)

KEY = "incoming/scale.jsonl"
FACTS = [{"factText": "Titanic is a 1997 film directed by James Cameron."}]
LINES = 23


def body(lines: int = LINES) -> bytes:
    rows = [
        {"id": f"q{n}", "answerCandidate": "James Cameron directed Titanic.", "facts": FACTS}
        if n % 5
        else {"answerCandidate": "no id"}  # every fifth line is bad
        for n in range(lines)
    ]
    return b"".join(json.dumps(row).encode() + b"\n" for row in rows)


def queued(aws: Aws) -> list[dict[str, Any]]:
    """Every message of the batch queue: taken out, then sent back for the workers."""
    bodies: list[str] = []
    while batch := aws.sqs.receive_message(
        QueueUrl=aws.queue_url, MaxNumberOfMessages=10, VisibilityTimeout=60
    ).get("Messages", []):
        bodies += [message["Body"] for message in batch]
        aws.sqs.delete_message_batch(
            QueueUrl=aws.queue_url,
            Entries=[
                {"Id": str(n), "ReceiptHandle": m["ReceiptHandle"]} for n, m in enumerate(batch)
            ],
        )
    for body in bodies:
        aws.sqs.send_message(QueueUrl=aws.queue_url, MessageBody=body)
    return [json.loads(body) for body in bodies]


def worker(event: dict[str, Any]) -> Any:
    return run_function("batch-worker", event)


def assert_complete(aws: Aws, lines: int = LINES) -> None:
    results = read_jsonl(aws, OUTPUT_BUCKET, f"results/{KEY}/results.jsonl")
    assert [r["line"] for r in results] == list(range(1, lines + 1))
    summary = read_json(aws, OUTPUT_BUCKET, f"results/{KEY}/summary.json")
    bad = len(range(0, lines, 5))
    assert (summary["total"], summary["succeeded"], summary["failed"]) == (lines, lines - bad, bad)


def test_given_the_time_running_short_when_enqueueing_then_the_retry_goes_on_from_there(
    aws: Aws,
) -> None:
    aws.s3.put_object(Bucket=INPUT_BUCKET, Key=KEY, Body=body())
    pipeline = dataclasses.replace(get_pipeline(), checkpoint_lines=5)

    with pytest.raises(EnqueueUnfinished):
        pipeline.enqueue(INPUT_BUCKET, KEY, deadline=time.monotonic() - 1)
    first = queued(aws)
    report = pipeline.enqueue(INPUT_BUCKET, KEY)

    # The first attempt stopped at its first checkpoint: 5 lines, one of them bad.
    assert sorted(m["line"] for m in first) == [2, 3, 4, 5]
    assert report is not None
    good = LINES - len(range(0, LINES, 5))
    assert (report.lines, report.enqueued, report.rejected) == (LINES, good, LINES - good)
    lines = sorted(m["line"] for m in queued(aws))
    assert lines == [n + 1 for n in range(LINES) if n % 5]  # each line sent once
    assert pipeline.enqueue(INPUT_BUCKET, KEY) is None  # sealed: a redelivery sends nothing
    drain(aws, worker)
    assert_complete(aws)


class FailingSends:
    """The queue's client, except that one send fails as SQS would fail it."""

    def __init__(self, sqs: Any, fail_at: int) -> None:
        self._sqs = sqs
        self._fail_at = fail_at
        self.sends = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._sqs, name)

    def send_message_batch(self, **request: Any) -> Any:
        self.sends += 1
        if self.sends == self._fail_at:
            raise self._sqs.exceptions.QueueDoesNotExist(
                {"Error": {"Code": "AWS.SimpleQueueService.NonExistentQueue"}}, "SendMessageBatch"
            )
        return self._sqs.send_message_batch(**request)


def test_given_an_enqueueing_that_fails_half_way_when_retried_then_every_line_counts_once(
    aws: Aws,
) -> None:
    aws.s3.put_object(Bucket=INPUT_BUCKET, Key=KEY, Body=body())
    failing = FailingSends(aws.sqs, fail_at=3)
    pipeline = dataclasses.replace(get_pipeline(), sqs=failing, checkpoint_lines=5, senders=1)

    with pytest.raises(aws.sqs.exceptions.QueueDoesNotExist):
        pipeline.enqueue(INPUT_BUCKET, KEY)
    report = pipeline.enqueue(INPUT_BUCKET, KEY)

    assert report is not None
    assert report.lines == LINES
    sent = [m["line"] for m in queued(aws)]
    # Lines after the last checkpoint may be sent twice; none is missing.
    assert set(sent) == {n + 1 for n in range(LINES) if n % 5}
    drain(aws, worker)
    assert_complete(aws)


@pytest.fixture
def small_parts(monkeypatch: pytest.MonkeyPatch) -> int:
    """S3 refuses parts under 5 MiB but the last; moto (in this process) is told 1 KiB."""
    import moto.s3.models

    monkeypatch.setattr(moto.s3.models, "S3_UPLOAD_PART_MIN_SIZE", 1024)
    return 1024


def test_given_a_batch_larger_than_a_part_when_assembled_then_it_is_uploaded_in_parts(
    aws: Aws, small_parts: int
) -> None:
    aws.s3.put_object(Bucket=INPUT_BUCKET, Key=KEY, Body=body())
    run_function("batch-enqueue", s3_event(INPUT_BUCKET, KEY))
    drain(aws, worker, assemble=False)
    (start,) = aws.sqs.receive_message(QueueUrl=aws.assemble_queue_url)["Messages"]
    aws.sqs.delete_message(QueueUrl=aws.assemble_queue_url, ReceiptHandle=start["ReceiptHandle"])
    assembler = dataclasses.replace(get_assembler(), part_bytes=small_parts, page=4)

    # The time is short from the start: each call writes one part and sends the rest on.
    outcomes = [assembler.assemble(start["Body"], deadline=time.monotonic() - 1)]
    while outcomes[-1] == "continued":
        (following,) = aws.sqs.receive_message(QueueUrl=aws.assemble_queue_url)["Messages"]
        aws.sqs.delete_message(
            QueueUrl=aws.assemble_queue_url, ReceiptHandle=following["ReceiptHandle"]
        )
        message = AssembleMessage.model_validate_json(following["Body"])
        assert message.upload_id is not None
        outcomes.append(assembler.assemble(following["Body"], deadline=time.monotonic() - 1))

    assert outcomes[-1] == "assembled"
    assert len(outcomes) >= 3
    etag = aws.s3.head_object(Bucket=OUTPUT_BUCKET, Key=f"results/{KEY}/results.jsonl")["ETag"]
    assert etag.strip('"').endswith(f"-{len(outcomes)}")  # a multipart upload, one part a call
    assert_complete(aws)
    # Once assembled, a repeated start changes nothing.
    assert assembler.assemble(start["Body"]) == "skipped"
