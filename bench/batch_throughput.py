"""Batch grounding throughput: requests per second for a 1,000-line input on this machine.

Two figures:
- ``check``: reading and validating the JSONL and running every grounding check in one
  process: the CPU ceiling of one worker.
- ``pipeline``: the deployed path against a moto server over HTTP: S3 object -> enqueue
  handler -> SQS -> worker handler (ten messages per call, like Lambda's poller) -> parts,
  ``results.jsonl`` and ``summary.json``. One worker at a time, so this is the rate of a
  single concurrent Lambda; moto's own request handling is included, and moto copies the
  whole DynamoDB table in every transaction (one per line), which makes long batches slower
  there than they are on AWS.

Lines are WiCE dev claims (``../shared/data/eval``) with their evidence documents as facts,
cycled to the requested count; without that file, the sample lines of ``events/``.

Run: ``.venv/bin/python bench/batch_throughput.py [--lines 1000]``
"""

from __future__ import annotations

import argparse
import itertools
import json
import logging
import os
import tempfile
import time
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any

from groundwork.api.schemas.grounding import CheckGroundingResponse
from groundwork.batch.lines import read_lines
from groundwork.grounding.heuristic import HeuristicVerifier
from groundwork.grounding.service import check

REPO = Path(__file__).resolve().parents[1]
WICE = REPO.parent / "shared" / "data" / "eval" / "wice_claim_dev.jsonl"
FACT_CHARS = 2000


def requests(count: int) -> bytes:
    if WICE.is_file():
        rows = [json.loads(line) for line in WICE.read_text().splitlines() if line.strip()]
        bodies = [
            {"answerCandidate": row["claim"], "facts": facts(row["evidence"])} for row in rows
        ]
    else:
        sample = (REPO / "events" / "batch_input.jsonl").read_text().splitlines()
        bodies = [json.loads(line) for line in sample if '"id"' in line]
    lines = [
        json.dumps({**body, "id": f"line-{index}"})
        for index, body in zip(range(count), itertools.cycle(bodies), strict=False)
    ]
    return ("\n".join(lines) + "\n").encode()


def facts(sentences: list[str]) -> list[dict[str, str]]:
    """The evidence document cut into facts of about FACT_CHARS characters (at most 200)."""
    chunks: list[str] = []
    for sentence in sentences:
        if chunks and len(chunks[-1]) + len(sentence) < FACT_CHARS:
            chunks[-1] += " " + sentence
        else:
            chunks.append(sentence[:10_000])
    return [{"factText": chunk} for chunk in chunks[:200]]


def check_only(data: bytes) -> tuple[int, float]:
    verifier = HeuristicVerifier()
    started = time.perf_counter()
    done = 0
    for line in read_lines(data):
        if line.request is not None:
            response = check(line.request.to_domain(), verifier)
            CheckGroundingResponse.from_domain(response).model_dump(by_alias=True)
            done += 1
    return done, time.perf_counter() - started


def pipeline(data: bytes) -> tuple[list[tuple[int, float]], float, dict[str, Any]]:
    import boto3
    from moto.server import ThreadedMotoServer

    from groundwork.cli.invoke import FUNCTIONS, invoke

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    scratch = tempfile.mkdtemp()
    os.environ.update(
        {
            "AWS_ENDPOINT_URL": f"http://{host}:{port}",
            "AWS_DEFAULT_REGION": "us-east-1",
            "AWS_ACCESS_KEY_ID": "testing",
            "AWS_SECRET_ACCESS_KEY": "testing",
            "GROUNDWORK_DATA_DIR": scratch,
            "GROUNDWORK_BOOTSTRAP_DOCS": "false",
            "GROUNDWORK_BATCH_TABLE": "batch",
            "GROUNDWORK_BATCH_OUTPUT_BUCKET": "bench-out",
        }
    )
    s3, sqs = boto3.client("s3"), boto3.client("sqs")
    s3.create_bucket(Bucket="bench-in")
    s3.create_bucket(Bucket="bench-out")
    queue = sqs.create_queue(QueueName="batch")["QueueUrl"]
    os.environ["GROUNDWORK_BATCH_QUEUE_URL"] = queue
    boto3.client("dynamodb").create_table(
        TableName="batch",
        BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
    )
    s3.put_object(Bucket="bench-in", Key="bench.jsonl", Body=data)
    event = json.loads((REPO / "events" / "s3_object_created.json").read_text())
    event["Records"][0]["s3"]["bucket"]["name"] = "bench-in"
    event["Records"][0]["s3"]["object"]["key"] = "bench.jsonl"
    record = json.loads((REPO / "events" / "sqs_batch_line.json").read_text())["Records"][0]
    started = time.perf_counter()
    calls: list[tuple[int, float]] = []  # (lines, seconds) of each worker call
    with open(os.devnull, "w") as devnull, redirect_stdout(devnull):
        invoke(FUNCTIONS["batch-enqueue"], event, root=REPO)
        while received := sqs.receive_message(QueueUrl=queue, MaxNumberOfMessages=10).get(
            "Messages", []
        ):
            records = [{**record, "messageId": m["MessageId"], "body": m["Body"]} for m in received]
            call_started = time.perf_counter()
            invoke(FUNCTIONS["batch-worker"], {"Records": records}, root=REPO)
            calls.append((len(records), time.perf_counter() - call_started))
            sqs.delete_message_batch(
                QueueUrl=queue,
                Entries=[
                    {"Id": str(i), "ReceiptHandle": m["ReceiptHandle"]}
                    for i, m in enumerate(received)
                ],
            )
    elapsed = time.perf_counter() - started
    summary = json.loads(
        s3.get_object(Bucket="bench-out", Key="results/bench.jsonl/summary.json")["Body"].read()
    )
    server.stop()
    return calls, elapsed, summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=1000)
    args = parser.parse_args()
    data = requests(args.lines)
    source = "WiCE dev" if WICE.is_file() else "samples"
    print(f"input: {args.lines} lines, {len(data) / 1e6:.1f} MB ({source})")
    print()
    print("| stage | lines | seconds | requests/s |")
    print("|---|---:|---:|---:|")
    done, seconds = check_only(data)
    print(f"| check (one process, no AWS) | {done} | {seconds:.1f} | {done / seconds:.0f} |")
    calls, seconds, summary = pipeline(data)
    total = summary["total"]
    rate = total / seconds
    print(f"| pipeline (moto over HTTP, one worker) | {total} | {seconds:.1f} | {rate:.0f} |")
    print()
    print(
        f"worker calls: {len(calls)}; summary: succeeded {summary['succeeded']}, "
        f"failed {summary['failed']}, mean support score {summary['mean_support_score']}"
    )
    first, last = calls[:10], calls[-10:]
    print(
        f"worker rate over the first ten calls {rate_of(first):.1f} lines/s, the last ten "
        f"{rate_of(last):.1f} lines/s: moto copies the whole table on every transaction, "
        "so its cost grows with the batch; DynamoDB's does not"
    )


def rate_of(calls: list[tuple[int, float]]) -> float:
    return sum(lines for lines, _ in calls) / sum(seconds for _, seconds in calls)


if __name__ == "__main__":
    main()
