"""The deployed shape, running: ``sam build``'s functions under the Runtime Interface Emulator.

``scripts/lambda_local.sh`` builds the tools and the functions once (cached in
``.lambda-local/``); without them these tests skip here and fail in CI. State is on moto's
server (DynamoDB, S3, SQS); retrieval is the keyword index in a shared data folder, or
OpenSearch when ``GROUNDWORK_OPENSEARCH_URL`` is set (``scripts/services.sh up``).
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import threading
import time
import urllib.request
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
from tests.conftest import REPO

TOOLS = Path(os.environ.get("GROUNDWORK_LAMBDA_DIR") or REPO / ".lambda-local")
BUILD = Path(os.environ.get("GROUNDWORK_SAM_BUILD_DIR") or TOOLS / "sam-build")
INPUT_BUCKET = "groundwork-batch-input"
OUTPUT_BUCKET = "groundwork-batch-output"


def unavailable(reason: str) -> None:
    """In CI a missing tool is a failure: the deployed shape must be tested there."""
    if os.environ.get("CI") == "true":
        pytest.fail(reason)
    pytest.skip(reason)


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
    from moto.server import ThreadedMotoServer

    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    yield f"http://{host}:{port}"
    server.stop()


@dataclass
class Stack:
    url: str  # the router, stage included: http://127.0.0.1:PORT/prod
    world: World
    environments: dict[str, Environment]
    settings: Settings
    s3: Any
    sqs: Any
    queue_url: str

    def invocations(self, function: str) -> int:
        return len(self.environments[function].reports)

    def invoke(self, function: str, event: dict[str, Any]) -> Any:
        """Through the router's Lambda Invoke API, as an event source would."""
        base = self.url.rsplit("/", 1)[0]
        response = httpx.post(
            f"{base}/2015-03-31/functions/{function}/invocations", json=event, timeout=120
        )
        assert response.status_code == 200, response.text
        assert "x-amz-function-error" not in response.headers, response.text
        return response.json()


def _aws_resources(endpoint: str) -> tuple[Any, Any, str]:
    urllib.request.urlopen(urllib.request.Request(f"{endpoint}/moto-api/reset", method="POST"))
    s3, sqs, dynamodb = (
        boto3.client(name, endpoint_url=endpoint) for name in ("s3", "sqs", "dynamodb")
    )
    s3.create_bucket(Bucket=INPUT_BUCKET)
    s3.create_bucket(Bucket=OUTPUT_BUCKET)
    queue_url = sqs.create_queue(QueueName="groundwork-batch")["QueueUrl"]
    dynamodb.create_table(
        TableName="groundwork-batch",
        BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
    )
    return s3, sqs, queue_url


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
        s3, sqs, queue_url = _aws_resources(moto_endpoint)
        overrides = {
            **aws,
            "GROUNDWORK_DATA_DIR": str(data_dir),
            "GROUNDWORK_STORAGE": "dynamodb",
            "GROUNDWORK_DYNAMODB_TABLE": "groundwork",
            "GROUNDWORK_DYNAMODB_ENDPOINT_URL": moto_endpoint,
            "GROUNDWORK_DYNAMODB_CREATE_TABLE": "true",
            "GROUNDWORK_RETRIEVAL": "keyword",
            "GROUNDWORK_DEFAULT_COLLECTION": "catechism",
            "GROUNDWORK_BATCH_QUEUE_URL": queue_url,
            "GROUNDWORK_BATCH_TABLE": "groundwork-batch",
            "GROUNDWORK_BATCH_OUTPUT_BUCKET": OUTPUT_BUCKET,
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
                    f"http://127.0.0.1:{port}/prod",
                    world,
                    environments,
                    settings,
                    s3,
                    sqs,
                    queue_url,
                )
            finally:
                server.should_exit = True
                thread.join(timeout=10)
        finally:
            context.__exit__(None, None, None)


def dump_logs(stack: Stack, function: str) -> str:
    return "".join(stack.environments[function].lines[-60:])


def read_json(stack: Stack, key: str) -> Any:
    return json.loads(stack.s3.get_object(Bucket=OUTPUT_BUCKET, Key=key)["Body"].read())
