"""How long a request takes to be refused when a backend is down, and the service to answer
again once it is back: the app under uvicorn on DynamoDB (a moto server of its own) and the
local OpenSearch node of ``scripts/services.sh``.

Scenarios: OpenSearch hung (the node stopped with SIGSTOP, then resumed), OpenSearch dead
(an app pointed at a port nothing listens on), DynamoDB hung (moto stopped, resumed), DynamoDB
dead (moto killed with SIGKILL, then started again on its port). For each: the first request's
seconds (it waits out the bound), the median of the next ones (the circuit is open: they fail
at once), their status and code, and the seconds from the backend's return to the first
answer (a cool-down and a probe). The node is only ever stopped, never killed.

    eval "$(scripts/services.sh up)"
    .venv/bin/python bench/outage_latency.py [--requests 10]
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import uvicorn

from groundwork.api.app import create_app
from groundwork.domain.cards import Card
from groundwork.retrieval.factory import get_retriever
from groundwork.settings import Settings
from groundwork.storage.dynamodb_table import DynamoTable
from groundwork.storage.factory import dynamodb_stores

AWS = {
    "AWS_DEFAULT_REGION": "us-east-1",
    "AWS_ACCESS_KEY_ID": "bench",
    "AWS_SECRET_ACCESS_KEY": "bench",
}


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=1):
            return True
    except OSError:
        return False


class Moto:
    def __init__(self) -> None:
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.start()

    def start(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(self.port)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        while not _answers(f"{self.url}/moto-api/data.json"):
            time.sleep(0.1)

    def signal(self, number: int) -> None:
        os.kill(self.process.pid, number)
        if number == signal.SIGKILL:
            self.process.wait()

    def stop(self) -> None:
        self.signal(signal.SIGCONT)
        self.process.terminate()
        self.process.wait(10)


@contextmanager
def served(settings: Settings) -> Iterator[str]:
    server = uvicorn.Server(
        uvicorn.Config(create_app(settings), host="127.0.0.1", port=0, log_level="error")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{server.servers[0].sockets[0].getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(10)


def seed(settings: Settings, *, card: bool = True) -> str:
    """A user with a key and a grant (and a card to find); the key. Through stores of its own,
    so that the app's clients, and their circuits, are left as they are."""
    table = DynamoTable(
        settings.dynamodb_table, endpoint_url=settings.dynamodb_endpoint_url, region="us-east-1"
    )
    table.create()
    accounts = dynamodb_stores(table).accounts
    accounts.create_user("bench", "Bench")
    accounts.create_collection("docs")
    accounts.grant("bench", "docs")
    if card:
        retriever = get_retriever(settings)
        retriever.upsert(
            [Card(id="c-00000", collection="docs", source_id="c", text="Tides.", url="tides.md")]
        )
        while retriever.count("docs") == 0:
            time.sleep(0.2)
    return accounts.issue_api_key("bench")


def measure(
    url: str,
    keys: list[str],
    route: tuple[str, str, Any],
    requests: int,
    down: Callable[[], None],
    up: Callable[[], None] | None,
) -> dict[str, Any]:
    """``keys[-1]`` is the key to send (``up`` may make a new one)."""
    method, path, body = route

    def call() -> tuple[float, int, str | None]:
        started = time.monotonic()
        headers = {"Authorization": f"Bearer {keys[-1]}"}
        response = httpx.request(method, f"{url}{path}", json=body, headers=headers, timeout=120)
        code = response.json()["error"]["code"] if response.status_code >= 400 else None
        return time.monotonic() - started, response.status_code, code

    down()
    first = call()
    following = [call() for _ in range(requests)]
    recovery = None
    if up is not None:
        up()
        back = time.monotonic()
        while call()[1] >= 500:
            time.sleep(0.1)
        recovery = time.monotonic() - back
    return {
        "first_s": first[0],
        "first": f"{first[1]} {first[2]}",
        "next_p50_s": statistics.median(t for t, _, _ in following),
        "next": sorted({f"{s} {c}" for _, s, c in following}),
        "recovery_s": recovery,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=10, help="requests after the first")
    args = parser.parse_args()
    opensearch = os.environ.get("GROUNDWORK_OPENSEARCH_URL")
    if not opensearch:
        sys.exit('GROUNDWORK_OPENSEARCH_URL is not set: eval "$(scripts/services.sh up)"')
    with urllib.request.urlopen(f"{opensearch}/_nodes/_local/process", timeout=10) as reply:
        (node,) = json.load(reply)["nodes"].values()
    node_pid = int(node["process"]["id"])
    os.environ.update(AWS)
    moto = Moto()
    search = ("POST", "/v1/search", {"query": "tides", "collection": "docs"})
    listing = ("GET", "/v1/collections", None)
    rows: list[tuple[str, dict[str, Any]]] = []
    try:
        with tempfile.TemporaryDirectory() as scratch:
            index = f"bench-outage-{uuid.uuid4().hex[:8]}"

            def settings(url: str, table: str) -> Settings:
                return Settings(
                    data_dir=Path(scratch),
                    bootstrap_docs=False,
                    storage="dynamodb",
                    dynamodb_table=table,
                    dynamodb_endpoint_url=moto.url,
                    dynamodb_region="us-east-1",
                    retrieval="opensearch",
                    opensearch_url=url,
                    opensearch_index=index,
                    opensearch_knn_engine="lucene",
                    require_api_key=True,
                )

            live = settings(opensearch, "bench-live")
            keys = [seed(live)]
            with served(live) as url:
                stop_node = lambda: os.kill(node_pid, signal.SIGSTOP)  # noqa: E731
                resume_node = lambda: os.kill(node_pid, signal.SIGCONT)  # noqa: E731
                hung = measure(url, keys, search, args.requests, stop_node, resume_node)
                rows.append(("OpenSearch hung (SIGSTOP)", hung))
                stop = lambda: moto.signal(signal.SIGSTOP)  # noqa: E731
                resume = lambda: moto.signal(signal.SIGCONT)  # noqa: E731
                rows.append(
                    (
                        "DynamoDB hung (SIGSTOP)",
                        measure(url, keys, listing, args.requests, stop, resume),
                    )
                )

                def start_again() -> None:  # empty: the table and the user are made again
                    moto.start()
                    keys.append(seed(live, card=False))

                kill = lambda: moto.signal(signal.SIGKILL)  # noqa: E731
                dead = measure(url, keys, listing, args.requests, kill, start_again)
                rows.append(("DynamoDB dead (SIGKILL, then started again)", dead))
            closed = settings(f"http://127.0.0.1:{_free_port()}", "bench-closed")
            keys.append(seed(closed, card=False))
            with served(closed) as url:
                refused = measure(url, keys, search, args.requests, lambda: None, None)
                rows.append(("OpenSearch dead (nothing on its port)", refused))
    finally:
        moto.stop()
    print(
        "| backend down | first request | its answer | next requests (p50) | their answer "
        "| answering again after its return |"
    )
    print("|---|---:|---|---:|---|---:|")
    for name, row in rows:
        recovery = "—" if row["recovery_s"] is None else f"{row['recovery_s']:.2f} s"
        print(
            f"| {name} | {row['first_s']:.2f} s | {row['first']} | {row['next_p50_s']:.3f} s "
            f"| {', '.join(row['next'])} | {recovery} |"
        )


if __name__ == "__main__":
    main()
