"""A moto server over HTTP with the batch resources, and helpers to run the Lambda handlers."""

from __future__ import annotations

import json
import logging
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import boto3
import pytest

from groundwork.batch.clients import get_assembler, get_pipeline
from groundwork.cli.invoke import find_function, invoke
from groundwork.grounding.factory import get_verifier
from groundwork.settings import get_settings
from tests.conftest import REPO
from tests.moto_server import in_process

EVENTS = REPO / "events"
INPUT_BUCKET = "groundwork-batch-input"  # the bucket of events/s3_object_created.json
OUTPUT_BUCKET = "groundwork-batch-output"
MAX_RECEIVE_COUNT = 2


@dataclass
class Aws:
    s3: Any
    sqs: Any
    dynamodb: Any
    queue_url: str
    dead_letter_url: str
    table: str
    assemble_queue_url: str


@pytest.fixture(scope="session")
def moto_endpoint() -> Iterator[str]:
    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # one line per request otherwise
    with in_process() as url:
        yield url


@pytest.fixture
def aws(
    moto_endpoint: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, readme_checkout: Path
) -> Iterator[Aws]:
    """Empty buckets, a queue with its dead-letter queue and the batch table, as in the template."""
    urllib.request.urlopen(urllib.request.Request(f"{moto_endpoint}/moto-api/reset", method="POST"))
    for name, value in {
        "AWS_ENDPOINT_URL": moto_endpoint,
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "GROUNDWORK_DATA_DIR": str(tmp_path / "data"),
        "GROUNDWORK_DOCS_DIR": str(readme_checkout),
        "GROUNDWORK_RETRIEVAL": "keyword",
    }.items():
        monkeypatch.setenv(name, value)
    for name in ("AWS_PROFILE", "AWS_SESSION_TOKEN", "LAMBDA_TASK_ROOT"):
        monkeypatch.delenv(name, raising=False)
    s3, sqs, dynamodb = boto3.client("s3"), boto3.client("sqs"), boto3.client("dynamodb")
    s3.create_bucket(Bucket=INPUT_BUCKET)
    s3.create_bucket(Bucket=OUTPUT_BUCKET)
    dead_letter_url = sqs.create_queue(QueueName="groundwork-batch-dlq")["QueueUrl"]
    dead_letter_arn = sqs.get_queue_attributes(
        QueueUrl=dead_letter_url, AttributeNames=["QueueArn"]
    )["Attributes"]["QueueArn"]
    queue_url = sqs.create_queue(
        QueueName="groundwork-batch",
        Attributes={
            "VisibilityTimeout": "0",  # a failed message is received again at once
            "RedrivePolicy": json.dumps(
                {"deadLetterTargetArn": dead_letter_arn, "maxReceiveCount": MAX_RECEIVE_COUNT}
            ),
        },
    )["QueueUrl"]
    assemble_queue_url = sqs.create_queue(
        QueueName="groundwork-batch-assemble",
        Attributes={
            # Received by one poller at a time, as Lambda's (a test polling it from several
            # threads would otherwise assemble one batch twice at once).
            "VisibilityTimeout": "30",
            "RedrivePolicy": json.dumps(
                {"deadLetterTargetArn": dead_letter_arn, "maxReceiveCount": MAX_RECEIVE_COUNT}
            ),
        },
    )["QueueUrl"]
    table = "groundwork-batch"
    dynamodb.create_table(
        TableName=table,
        BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
    )
    monkeypatch.setenv("GROUNDWORK_BATCH_QUEUE_URL", queue_url)
    monkeypatch.setenv("GROUNDWORK_BATCH_ASSEMBLE_QUEUE_URL", assemble_queue_url)
    monkeypatch.setenv("GROUNDWORK_BATCH_TABLE", table)
    monkeypatch.setenv("GROUNDWORK_BATCH_OUTPUT_BUCKET", OUTPUT_BUCKET)
    _clear_caches()
    yield Aws(s3, sqs, dynamodb, queue_url, dead_letter_url, table, assemble_queue_url)
    _clear_caches()


def _clear_caches() -> None:
    get_settings.cache_clear()
    get_pipeline.cache_clear()
    get_assembler.cache_clear()
    get_verifier.cache_clear()


def run_function(name: str, event: dict[str, Any]) -> Any:
    result, _ = invoke(find_function(name), event, root=REPO)
    return result


def load_event(name: str) -> dict[str, Any]:
    event: dict[str, Any] = json.loads((EVENTS / name).read_text())
    return event


def s3_event(bucket: str, key: str) -> dict[str, Any]:
    """The sample ObjectCreated event for another object (keys arrive URL-encoded)."""
    from urllib.parse import quote_plus

    event = load_event("s3_object_created.json")
    event["Records"][0]["s3"]["bucket"]["name"] = bucket
    event["Records"][0]["s3"]["object"]["key"] = quote_plus(key, safe="/")
    return event


def document_event(
    bucket: str, key: str, *, etag: str | None = None, removed: bool = False
) -> dict[str, Any]:
    """The sample documents-queue event for another object: S3's notification in its body."""
    from urllib.parse import quote_plus

    event = load_event("sqs_document_created.json")
    notification = json.loads(event["Records"][0]["body"])
    record = notification["Records"][0]
    record["s3"]["bucket"]["name"] = bucket
    record["s3"]["object"]["key"] = quote_plus(key, safe="/")  # keys arrive URL-encoded
    if removed:
        record["eventName"] = "ObjectRemoved:Delete"
        del record["s3"]["object"]["eTag"]
    else:
        record["s3"]["object"]["eTag"] = etag
    event["Records"][0]["body"] = json.dumps(notification)
    return event


def sqs_event(messages: list[dict[str, Any]]) -> dict[str, Any]:
    """The event Lambda's SQS poller builds from received messages."""
    template = load_event("sqs_batch_line.json")["Records"][0]
    records = [
        {
            **template,
            "messageId": message["MessageId"],
            "receiptHandle": message["ReceiptHandle"],
            "body": message["Body"],
            "md5OfBody": message["MD5OfBody"],
        }
        for message in messages
    ]
    return {"Records": records}


def drain(
    aws: Aws,
    worker: Callable[[dict[str, Any]], Any],
    *,
    rounds: int = 50,
    assemble: bool = True,
) -> int:
    """Poll the batch queue like Lambda's event source mapping: deliver up to ten messages per
    call, delete those not reported as failed; then (``assemble``) the assembly queue, one
    message per call to the assembly function. Returns the number of worker calls."""
    calls = poll(aws, aws.queue_url, worker, batch_size=10, rounds=rounds)
    if assemble:
        poll(aws, aws.assemble_queue_url, assembler, batch_size=1, rounds=rounds)
    return calls


def assembler(event: dict[str, Any]) -> Any:
    return run_function("batch-assemble", event)


def poll(
    aws: Aws,
    queue_url: str,
    handler: Callable[[dict[str, Any]], Any],
    *,
    batch_size: int,
    rounds: int = 50,
) -> int:
    """Deliver ``queue_url``'s messages to ``handler`` until it is empty; the number of calls."""
    for calls in range(rounds):
        received = aws.sqs.receive_message(
            QueueUrl=queue_url, MaxNumberOfMessages=batch_size, AttributeNames=["All"]
        ).get("Messages", [])
        if not received:
            return calls
        response = handler(sqs_event(received))
        failed = {item["itemIdentifier"] for item in response["batchItemFailures"]}
        for message in received:
            if message["MessageId"] not in failed:
                aws.sqs.delete_message(QueueUrl=queue_url, ReceiptHandle=message["ReceiptHandle"])
    raise AssertionError("the queue did not drain")


def read_json(aws: Aws, bucket: str, key: str) -> Any:
    return json.loads(aws.s3.get_object(Bucket=bucket, Key=key)["Body"].read())


def read_jsonl(aws: Aws, bucket: str, key: str) -> list[dict[str, Any]]:
    body = aws.s3.get_object(Bucket=bucket, Key=key)["Body"].read().decode()
    return [json.loads(line) for line in body.splitlines()]
