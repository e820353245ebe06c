"""Storage latency, one client thread: p50/p95 per operation, SQLite vs DynamoDB (moto over HTTP).

SQLite is the embedded file in a temporary directory (WAL, synchronous=NORMAL). DynamoDB is a
moto server on localhost, so its figures are HTTP round trips to an in-process fake: they
show the client's and the protocol's cost, not AWS's network latency (add a few ms per call
in a region).

    .venv/bin/python bench/storage_latency.py [--runs 200]
"""

from __future__ import annotations

import argparse
import logging
import os
import statistics
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path

from groundwork.storage.dynamodb_table import DynamoTable
from groundwork.storage.factory import dynamodb_stores, sqlite_stores
from groundwork.storage.records import Completion, QuestionRecord, new_question_id
from groundwork.storage.sqlite_db import SQLiteDatabase
from groundwork.storage.stores import Stores

#: Turns already in the conversation that ``feed`` reads and ``add_question`` appends to.
TURNS = 10
ANSWER = {"text": "An answer of a few sentences. " * 20, "citations": []}


def _operations(stores: Stores) -> dict[str, Callable[[int], object]]:
    stores.accounts.create_user("u1", "bench")
    key = stores.accounts.issue_api_key("u1")
    stores.accounts.create_collection("docs")
    stores.accounts.grant("u1", "docs")
    stores.quotas.set_quota("u1", questions_left=10**9, credits_left=10**9)
    stores.conversations.create_conversation("c1", "u1")
    for _ in range(TURNS):
        stores.conversations.add_question(_question())
    stores.idempotency.claim("u1", "dup", "owner", lease_seconds=60)
    stores.cache.put("hot", ANSWER, ttl_seconds=3600)

    def turn(i: int) -> object:
        conversation = f"t{i}"
        stores.conversations.create_conversation(conversation, "u1")
        stores.idempotency.claim("u1", f"turn{i}", "w", lease_seconds=60)
        completion = Completion(user_id="u1", request_id=f"turn{i}", owner="w", response=ANSWER)
        return stores.conversations.add_question(_question(conversation), completion=completion)

    return {
        "authenticate (key -> user)": lambda i: stores.accounts.authenticate(key),
        "can_see (grant)": lambda i: stores.accounts.can_see("u1", "docs"),
        "claim request_id (new)": lambda i: stores.idempotency.claim(
            "u1", f"r{i}", "w", lease_seconds=60
        ),
        "claim request_id (duplicate)": lambda i: stores.idempotency.claim(
            "u1", "dup", "other", lease_seconds=60
        ),
        "cache get (hit)": lambda i: stores.cache.get("hot"),
        "cache put (replace)": lambda i: stores.cache.put("hot", ANSWER, ttl_seconds=3600),
        "quota consume": lambda i: stores.quotas.consume("u1", credits=1),
        "first turn (create, claim, add_question)": turn,
        f"feed ({TURNS} turns)": lambda i: stores.conversations.feed("c1"),
    }


def _question(conversation: str = "c1") -> QuestionRecord:
    return QuestionRecord(
        id=new_question_id(),
        conversation_id=conversation,
        question="What does the bench measure?",
        answer_id=uuid.uuid4().hex,
        answer=str(ANSWER["text"]),
        created=0,
    )


def _measure(stores: Stores, runs: int) -> dict[str, tuple[float, float]]:
    figures: dict[str, tuple[float, float]] = {}
    for name, operation in _operations(stores).items():
        samples = []
        for i in range(runs):
            started = time.perf_counter()
            operation(i)
            samples.append(1000 * (time.perf_counter() - started))
        figures[name] = (statistics.median(samples), statistics.quantiles(samples, n=20)[18])
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200)
    runs = parser.parse_args().runs

    from moto.server import ThreadedMotoServer

    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        os.environ.setdefault(name, "bench")
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    table = DynamoTable("bench", endpoint_url=f"http://{host}:{port}", region="us-east-1")
    table.create()
    with tempfile.TemporaryDirectory() as folder:
        sqlite = _measure(sqlite_stores(SQLiteDatabase(Path(folder) / "state.sqlite3")), runs)
        dynamodb = _measure(dynamodb_stores(table), runs)
    server.stop()

    print(f"storage latency, ms, {runs} runs per operation, one thread")
    print("| operation | SQLite p50 | SQLite p95 | DynamoDB (moto) p50 | DynamoDB (moto) p95 |")
    print("|---|---:|---:|---:|---:|")
    for name, (p50, p95) in sqlite.items():
        d50, d95 = dynamodb[name]
        print(f"| {name} | {p50:.2f} | {p95:.2f} | {d50:.2f} | {d95:.2f} |")


if __name__ == "__main__":
    main()
