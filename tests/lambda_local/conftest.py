"""The deployed shape, running: ``sam build``'s functions under the Runtime Interface Emulator.

``scripts/lambda_local.sh`` builds the tools and the functions once (cached in
``.lambda-local/``); without them these tests skip here and fail in CI. State is on the moto
server of ``scripts/services.sh up`` (DynamoDB, S3, SQS; ``GROUNDWORK_MOTO_URL``), each stack
with its own table, buckets and queues; without it, on a moto server in this process, except
in CI, which runs them on the services'. Retrieval is the keyword index in a shared data
folder, or OpenSearch when ``GROUNDWORK_OPENSEARCH_URL`` is set (``scripts/services.sh up``).
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import boto3
import httpx
import pytest
import uvicorn

from groundwork.local_lambda.emulator import Environment, free_port
from groundwork.local_lambda.router import Gateway
from groundwork.local_lambda.stack import NotBuilt, running
from groundwork.retrieval.factory import get_retriever
from groundwork.settings import Settings
from groundwork.storage.factory import get_storage, get_stores
from tests.chat.fixtures import World, seed
from tests.conftest import REPO, unavailable
from tests.moto_server import in_process

TOOLS = Path(os.environ.get("GROUNDWORK_LAMBDA_DIR") or REPO / ".lambda-local")
BUILD = Path(os.environ.get("GROUNDWORK_SAM_BUILD_DIR") or TOOLS / "sam-build")


@pytest.fixture(scope="session")
def lambda_build() -> Path:
    """The tools and ``sam build`` (cached; a rebuild takes a minute or two)."""
    done = subprocess.run(
        [str(REPO / "scripts" / "lambda_local.sh"), "all"],
        env={
            **os.environ,
            "GROUNDWORK_LAMBDA_DIR": str(TOOLS),
            "GROUNDWORK_SAM_BUILD_DIR": str(BUILD),
        },
        capture_output=True,
        text=True,
        timeout=3600,
    )
    if done.returncode != 0:
        unavailable(f"scripts/lambda_local.sh failed:\n{done.stdout[-2000:]}{done.stderr[-3000:]}")
    return BUILD


@pytest.fixture(scope="session")
def moto_endpoint() -> Iterator[str]:
    """The services' moto server, or (outside CI) one in this process."""
    if url := os.environ.get("GROUNDWORK_MOTO_URL"):
        yield url
        return
    if os.environ.get("CI") == "true":
        pytest.fail("GROUNDWORK_MOTO_URL is not set: CI runs the deployed shape on moto's server")
    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    with in_process() as url:
        yield url


@dataclass(frozen=True)
class Resources:
    """A stack's own names on the shared moto server."""

    input_bucket: str
    output_bucket: str
    documents_bucket: str
    queue_url: str
    assemble_queue_url: str
    batch_table: str
    state_table: str


def sqs_records(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The SQS event records Lambda's poller makes of received ``messages``."""
    template = json.loads((REPO / "events" / "sqs_batch_line.json").read_text())["Records"][0]
    return [
        template
        | {
            "messageId": m["MessageId"],
            "receiptHandle": m["ReceiptHandle"],
            "body": m["Body"],
            "md5OfBody": m["MD5OfBody"],
        }
        for m in messages
    ]


@dataclass
class Stack:
    url: str  # the router, stage included: http://127.0.0.1:PORT/prod
    world: World
    environments: dict[str, Environment]
    settings: Settings
    s3: Any
    sqs: Any
    aws: Resources

    def invocations(self, function: str, *, reaching: int = 0, within_s: float = 10.0) -> int:
        """The REPORT lines ``function``'s emulator has printed; with ``reaching``, waits up to
        ``within_s`` for that many, since a reader thread takes them from the emulator's output
        after the response has gone (a streamed one, most of all)."""
        deadline = time.monotonic() + within_s
        while len(self.environments[function].reports) < reaching and time.monotonic() < deadline:
            time.sleep(0.05)
        return len(self.environments[function].reports)

    def drain(self, queue_url: str, function: str, batch_size: int) -> int:
        """Lambda's SQS poller: ``queue_url``'s messages to ``function`` until it is empty,
        the messages not reported failed deleted; returns the number of invocations."""
        for calls in range(1000):
            messages = self.sqs.receive_message(
                QueueUrl=queue_url, MaxNumberOfMessages=batch_size
            ).get("Messages", [])
            if not messages:
                return calls
            result = self.invoke(function, {"Records": sqs_records(messages)})
            failed = {item["itemIdentifier"] for item in result["batchItemFailures"]}
            for m in messages:
                if m["MessageId"] not in failed:
                    self.sqs.delete_message(QueueUrl=queue_url, ReceiptHandle=m["ReceiptHandle"])
        raise AssertionError(f"{queue_url} did not drain")

    def invoke(self, function: str, event: dict[str, Any]) -> Any:
        """Through the router's Lambda Invoke API, as an event source would."""
        base = self.url.rsplit("/", 1)[0]
        response = httpx.post(
            f"{base}/2015-03-31/functions/{function}/invocations", json=event, timeout=120
        )
        assert response.status_code == 200, response.text
        assert "x-amz-function-error" not in response.headers, response.text
        return response.json()


def _aws_resources(endpoint: str) -> tuple[Any, Any, Resources]:
    suffix = uuid.uuid4().hex[:8]
    s3, sqs, dynamodb = (
        boto3.client(name, endpoint_url=endpoint) for name in ("s3", "sqs", "dynamodb")
    )
    names = Resources(
        input_bucket=f"groundwork-batch-input-{suffix}",
        output_bucket=f"groundwork-batch-output-{suffix}",
        documents_bucket=f"groundwork-documents-{suffix}",
        queue_url=sqs.create_queue(QueueName=f"groundwork-batch-{suffix}")["QueueUrl"],
        assemble_queue_url=sqs.create_queue(QueueName=f"groundwork-assemble-{suffix}")["QueueUrl"],
        batch_table=f"groundwork-batch-{suffix}",
        state_table=f"groundwork-{suffix}",
    )
    for bucket in (names.input_bucket, names.output_bucket, names.documents_bucket):
        s3.create_bucket(Bucket=bucket)
    dynamodb.create_table(
        TableName=names.batch_table,
        BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
    )
    return s3, sqs, names


def _serve(gateway: Gateway) -> tuple[uvicorn.Server, threading.Thread, int]:
    port = free_port()
    server = uvicorn.Server(
        uvicorn.Config(gateway.app(), host="127.0.0.1", port=port, log_level="warning")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    return server, thread, port


@pytest.fixture(scope="module")
def stack(
    lambda_build: Path, moto_endpoint: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Stack]:
    data_dir = tmp_path_factory.mktemp("lambda") / "data"
    aws = {
        "AWS_ENDPOINT_URL": moto_endpoint,
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_REGION": "us-east-1",
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
    }
    with pytest.MonkeyPatch.context() as patch:
        for name, value in aws.items():
            patch.setenv(name, value)
        patch.delenv("AWS_PROFILE", raising=False)
        s3, sqs, names = _aws_resources(moto_endpoint)
        overrides = {
            **aws,
            "GROUNDWORK_DATA_DIR": str(data_dir),
            "GROUNDWORK_STORAGE": "dynamodb",
            "GROUNDWORK_DYNAMODB_TABLE": names.state_table,
            "GROUNDWORK_DYNAMODB_ENDPOINT_URL": moto_endpoint,
            "GROUNDWORK_DYNAMODB_CREATE_TABLE": "true",
            "GROUNDWORK_RETRIEVAL": "keyword",
            "GROUNDWORK_DEFAULT_COLLECTION": "catechism",
            "GROUNDWORK_BATCH_QUEUE_URL": names.queue_url,
            "GROUNDWORK_BATCH_ASSEMBLE_QUEUE_URL": names.assemble_queue_url,
            "GROUNDWORK_BATCH_TABLE": names.batch_table,
            "GROUNDWORK_BATCH_OUTPUT_BUCKET": names.output_bucket,
        }
        if os.environ.get("GROUNDWORK_OPENSEARCH_URL"):  # scripts/services.sh up
            overrides |= {
                k: v for k, v in os.environ.items() if k.startswith("GROUNDWORK_OPENSEARCH")
            }
            overrides["GROUNDWORK_RETRIEVAL"] = "opensearch"
        settings = Settings(
            **{
                k[len("GROUNDWORK_") :].lower(): v
                for k, v in overrides.items()
                if k.startswith("GROUNDWORK_")
            },
            bootstrap_docs=False,
        )
        world = seed(settings)
        get_retriever.cache_clear()
        get_storage.cache_clear()
        get_stores.cache_clear()
        try:
            context = running(lambda_build, TOOLS, overrides)
            environments = context.__enter__()
        except NotBuilt as exc:
            unavailable(str(exc))
        try:
            gateway = Gateway(environments)
            server, thread, port = _serve(gateway)
            try:
                yield Stack(
                    f"http://127.0.0.1:{port}/prod", world, environments, settings, s3, sqs, names
                )
            finally:
                server.should_exit = True
                thread.join(timeout=10)
        finally:
            context.__exit__(None, None, None)


def dump_logs(stack: Stack, function: str) -> str:
    return "".join(stack.environments[function].lines[-60:])


def read_json(stack: Stack, key: str) -> Any:
    return json.loads(stack.s3.get_object(Bucket=stack.aws.output_bucket, Key=key)["Body"].read())
