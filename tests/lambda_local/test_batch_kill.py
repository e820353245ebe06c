"""Batch grounding through the deployed shape with its worker killed (SIGKILL of the function's
runtime) in the middle of a batch of messages: SQS delivers them again, and every line of the
input has its result exactly once, counted once in the summary.

Only what a user sees is asserted (the results and the summary), so the test holds whatever
the pipeline's inner bookkeeping becomes.
"""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote_plus

import httpx

from groundwork.batch.results import PARTS_PREFIX
from tests.conftest import REPO
from tests.lambda_local.conftest import Stack, dump_logs, read_json, sqs_records

EVENTS = REPO / "events"
LINES = 12
#: Seconds a received message stays invisible: after the kill, SQS delivers it again.
VISIBILITY_S = 3


def _line(number: int) -> dict[str, Any]:
    # Long enough that a check takes a moment: the kill lands between two lines' results.
    facts = [
        {"factText": f"Fact {i} of line {number}: the ship sank in 1912 after striking an iceberg."}
        for i in range(40)
    ]
    return {
        "id": f"line-{number}",
        "answerCandidate": "The ship sank in 1912. It struck an iceberg. " * 20,
        "facts": facts,
    }


def _runtime_pids(stack: Stack, function: str) -> list[int]:
    """The function's runtime (its Python, a descendant of the emulator): what Lambda's
    sandbox runs, and what dies when a worker is killed."""
    parents: dict[int, int] = {}
    commands: dict[int, bytes] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            commands[int(entry.name)] = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    family = {stack.environments[function].process.pid}
    grew = True
    while grew:
        children = {pid for pid, parent in parents.items() if parent in family} - family
        family |= children
        grew = bool(children)
    return sorted(pid for pid in family if b"python" in commands.get(pid, b""))


def _parts(stack: Stack) -> int:
    """Lines whose result is written (one part each, under ``parts/``)."""
    listed = stack.s3.list_objects_v2(Bucket=stack.aws.output_bucket, Prefix=PARTS_PREFIX)
    return int(listed.get("KeyCount", 0))


def _receive(stack: Stack) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = stack.sqs.receive_message(
        QueueUrl=stack.aws.queue_url,
        MaxNumberOfMessages=10,
        VisibilityTimeout=VISIBILITY_S,
        WaitTimeSeconds=1,
    ).get("Messages", [])
    return messages


def _invoke(stack: Stack, records: list[dict[str, Any]]) -> httpx.Response:
    base = stack.url.rsplit("/", 1)[0]
    return httpx.post(
        f"{base}/2015-03-31/functions/BatchWorkerFunction/invocations",
        json={"Records": records},
        timeout=120,
    )


def test_given_a_worker_killed_mid_batch_when_its_messages_come_again_then_each_line_once(
    stack: Stack,
) -> None:
    key = "batches/killed worker.jsonl"
    body = "\n".join(json.dumps(_line(n)) for n in range(1, LINES + 1)).encode()
    stack.s3.put_object(Bucket=stack.aws.input_bucket, Key=key, Body=body)
    event = json.loads((EVENTS / "s3_object_created.json").read_text())
    event["Records"][0]["s3"]["bucket"]["name"] = stack.aws.input_bucket
    event["Records"][0]["s3"]["object"]["key"] = quote_plus(key, safe="/")
    assert stack.invoke("BatchEnqueueFunction", event)["batches"][0]["enqueued"] == LINES

    # The first delivery: ten messages, and the runtime killed once a line's result is out.
    first = _receive(stack)
    assert len(first) == 10
    before = _parts(stack)
    answers: list[httpx.Response] = []
    worker = threading.Thread(target=lambda: answers.append(_invoke(stack, sqs_records(first))))
    worker.start()
    deadline = time.monotonic() + 120
    while _parts(stack) == before:
        assert worker.is_alive(), dump_logs(stack, "BatchWorkerFunction")  # ended before the kill
        assert time.monotonic() < deadline, "no line's result was ever written"
        time.sleep(0.02)
    killed = _runtime_pids(stack, "BatchWorkerFunction")
    assert killed, dump_logs(stack, "BatchWorkerFunction")
    for pid in killed:
        os.kill(pid, signal.SIGKILL)
    worker.join(130)
    (failed,) = answers
    assert failed.status_code != 200 or "x-amz-function-error" in failed.headers
    partial = _parts(stack) - before
    assert 0 < partial < 10, "the kill did not land mid-batch"

    # Lambda's poller: what was not deleted comes again once its visibility timeout ends.
    time.sleep(VISIBILITY_S)
    deadline = time.monotonic() + 180
    while messages := _receive(stack):
        assert time.monotonic() < deadline, "the queue never drained"
        done = _invoke(stack, sqs_records(messages))
        assert done.status_code == 200, done.text
        assert "x-amz-function-error" not in done.headers, done.text
        assert done.json()["batchItemFailures"] == [], done.text
        for m in messages:
            stack.sqs.delete_message(QueueUrl=stack.aws.queue_url, ReceiptHandle=m["ReceiptHandle"])

    stack.drain(stack.aws.assemble_queue_url, "BatchAssembleFunction", batch_size=1)
    results = stack.s3.get_object(
        Bucket=stack.aws.output_bucket, Key=f"results/{key}/results.jsonl"
    )
    lines = [json.loads(line) for line in results["Body"].read().splitlines()]
    assert sorted(line["id"] for line in lines) == sorted(f"line-{n}" for n in range(1, LINES + 1))
    assert [line["line"] for line in lines] == list(range(1, LINES + 1))
    summary = read_json(stack, f"results/{key}/summary.json")
    assert (summary["total"], summary["succeeded"] + summary["failed"]) == (LINES, LINES)
