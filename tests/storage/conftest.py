"""The backends the contract suite runs against: SQLite in a temporary directory, and DynamoDB
through a moto server over HTTP, each with a fresh table and a clock the test moves."""

from __future__ import annotations

import logging
import threading
import uuid
from collections.abc import Callable, Iterable, Iterator
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


def _one_request_at_a_time(app: Callable[..., Iterable[bytes]]) -> Callable[..., list[bytes]]:
    """moto checks a condition and then writes with no lock, so two requests in its threaded
    server can both pass one condition; DynamoDB itself serializes the writes to an item.
    Serializing the server's requests gives moto that guarantee; clients stay concurrent."""
    lock = threading.Lock()

    def serialized(environ: dict[str, Any], start_response: Callable[..., Any]) -> list[bytes]:
        with lock:
            return list(app(environ, start_response))

    return serialized


@pytest.fixture(scope="session")
def moto_endpoint() -> Iterator[str]:
    """A moto server on a free port for the whole session; tests isolate by table name."""
    from moto.server import ThreadedMotoServer

    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    with pytest.MonkeyPatch.context() as patch:
        # moto accepts any credentials; these keep boto3 from looking for real ones.
        patch.setenv("AWS_ACCESS_KEY_ID", "testing")
        patch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
        patch.setenv("AWS_DEFAULT_REGION", REGION)
        server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
        server.start()
        server._server.app = _one_request_at_a_time(server._server.app)  # type: ignore[union-attr]
        host, port = server.get_host_and_port()
        yield f"http://{host}:{port}"
        server.stop()


@pytest.fixture(scope="session")
def moto_client(moto_endpoint: str) -> Any:
    """One client for the session: building a boto3 client costs more than most tests."""
    import boto3
    from botocore.config import Config

    return boto3.session.Session().client(
        "dynamodb",
        endpoint_url=moto_endpoint,
        region_name=REGION,
        config=Config(max_pool_connections=32),
    )


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


@pytest.fixture(params=["sqlite", "dynamodb"])
def backend(request: pytest.FixtureRequest, tmp_path: Path, clock: FakeClock) -> Backend:
    if request.param == "sqlite":
        database = SQLiteDatabase(tmp_path / "state.sqlite3", clock=clock)
        return Backend("sqlite", sqlite_stores(database), SQLiteStorage(database))
    table = new_table(request.getfixturevalue("moto_client"), clock)
    return Backend("dynamodb", dynamodb_stores(table), DynamoDBStorage(table))


@pytest.fixture
def stores(backend: Backend) -> Stores:
    return backend.stores
