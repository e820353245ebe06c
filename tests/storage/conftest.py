"""The backends the contract suite runs against, each with a fresh table and a clock the test
moves: SQLite in a temporary directory; DynamoDB on a moto server in this process, over HTTP
(``dynamodb``); and DynamoDB on the moto server ``scripts/services.sh up`` runs, in a process of
its own, named by ``GROUNDWORK_DYNAMODB_ENDPOINT_URL`` (``dynamodb-server``: without it these
skip here and fail in CI)."""

from __future__ import annotations

import logging
import os
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from groundwork.storage.base import Storage
from groundwork.storage.dynamodb import DynamoDBStorage
from groundwork.storage.dynamodb_table import DynamoTable, RetryPolicy
from groundwork.storage.factory import dynamodb_stores, sqlite_stores
from groundwork.storage.records import QuestionRecord
from groundwork.storage.sqlite import SQLiteStorage
from groundwork.storage.sqlite_db import SQLiteDatabase
from groundwork.storage.stores import Stores
from tests.conftest import unavailable
from tests.moto_server import in_process

REGION = "us-east-1"


def question(question_id: int, text: str, conversation_id: str = "c1") -> QuestionRecord:
    """A question with its answer, as the chat service writes one."""
    return QuestionRecord(
        id=question_id,
        conversation_id=conversation_id,
        question=text,
        answer_id=f"a{question_id}",
        answer=f"answer to {text}",
        created=0,
    )


@dataclass
class FakeClock:
    now: float = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@dataclass
class Backend:
    name: str
    stores: Stores
    storage: Storage


@pytest.fixture(scope="session")
def moto_endpoint() -> Iterator[str]:
    """A moto server on a free port for the whole session; tests isolate by table name."""
    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    with pytest.MonkeyPatch.context() as patch:
        # moto accepts any credentials; these keep boto3 from looking for real ones.
        patch.setenv("AWS_ACCESS_KEY_ID", "testing")
        patch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
        patch.setenv("AWS_DEFAULT_REGION", REGION)
        with in_process() as url:
            yield url


def _client(endpoint: str) -> Any:
    import boto3
    from botocore.config import Config

    # moto accepts any credentials; these keep boto3 from looking for real ones.
    return boto3.session.Session().client(
        "dynamodb",
        endpoint_url=endpoint,
        region_name=REGION,
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
        config=Config(max_pool_connections=32),
    )


@pytest.fixture(scope="session")
def moto_client(moto_endpoint: str) -> Any:
    """One client for the session: building a boto3 client costs more than most tests."""
    return _client(moto_endpoint)


@pytest.fixture(scope="session")
def moto_server_client() -> Any:
    """A client of the moto server of ``scripts/services.sh up``."""
    endpoint = os.environ.get("GROUNDWORK_DYNAMODB_ENDPOINT_URL")
    if not endpoint:
        unavailable(
            "GROUNDWORK_DYNAMODB_ENDPOINT_URL is not set: run `eval $(scripts/services.sh up)`"
        )
    return _client(endpoint)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


def new_table(client: Any, clock: FakeClock) -> DynamoTable:
    """A fresh table (so tests share the server, not data), retrying without sleeping."""
    table = DynamoTable(
        f"groundwork-{uuid.uuid4().hex[:12]}",
        clock=clock,
        client=client,
        retry=RetryPolicy(sleep=lambda _: None),
    )
    table.create()
    return table


@pytest.fixture(params=["sqlite", "dynamodb", "dynamodb-server"])
def backend(request: pytest.FixtureRequest, tmp_path: Path, clock: FakeClock) -> Backend:
    if request.param == "sqlite":
        database = SQLiteDatabase(tmp_path / "state.sqlite3", clock=clock)
        return Backend("sqlite", sqlite_stores(database), SQLiteStorage(database))
    client = "moto_client" if request.param == "dynamodb" else "moto_server_client"
    table = new_table(request.getfixturevalue(client), clock)
    return Backend(request.param, dynamodb_stores(table), DynamoDBStorage(table))


@pytest.fixture
def stores(backend: Backend) -> Stores:
    return backend.stores
