"""Duplicates, disconnects and a killed server, against uvicorn in a subprocess over HTTP.

Nothing may be stored twice and every client must end up with the one answer.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from groundwork.local_lambda.emulator import free_port
from groundwork.settings import Settings
from groundwork.storage.factory import get_stores
from tests.chat.fixtures import World, ask, bearer, seed, sse_events
from tests.conftest import REPO

QUESTION = "How many sacraments are there?"


@dataclass
class Server:
    data_dir: Path
    port: int
    process: subprocess.Popen[bytes]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"


def start_server(data_dir: Path, *, delay: float, lease: int) -> Server:
    port = free_port()
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tests.chat.server",
            str(data_dir),
            str(port),
            "--delay",
            str(delay),
            "--lease",
            str(lease),
        ],
        cwd=REPO,
        env=os.environ | {"PYTHONPATH": str(REPO)},
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/health", timeout=1).status_code == 200:
                return Server(data_dir, port, process)
        except httpx.TransportError:
            time.sleep(0.1)
    process.kill()
    raise RuntimeError("the server did not start")


def stop(server: Server) -> None:
    if server.process.poll() is None:
        server.process.terminate()
        server.process.wait(10)


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> World:
    data_dir = tmp_path_factory.mktemp("reliability") / "data"
    return seed(Settings(data_dir=data_dir, bootstrap_docs=False, retrieval="keyword"))


@pytest.fixture(scope="module")
def server(world: World) -> Iterator[Server]:
    """One server for the tests that do not kill it; each test has its own conversation."""
    # A lease of seconds: under a loaded machine the gap between a claim and its first
    # renewal must not let a duplicate take the request over.
    running = start_server(world.settings.data_dir, delay=0.02, lease=5)
    yield running
    stop(running)


def stored_answers(world: World, conv_id: str) -> list[str]:
    """Every question row of the conversation in the state file: the answers stored."""
    with sqlite3.connect(world.settings.state_path) as db:
        rows = db.execute(
            "SELECT body FROM questions WHERE conversation_id = ?", (conv_id,)
        ).fetchall()
    return [json.loads(body)["answer"] for (body,) in rows]


def stream_chat(server: Server, key: str, body: dict[str, Any]) -> list[dict[str, Any]]:
    response = httpx.post(f"{server.url}/v1/chat", json=body, headers=bearer(key), timeout=60)
    assert response.status_code == 200, response.text
    return sse_events(response.text)


def test_given_20_concurrent_duplicates_then_one_question_and_the_same_text_for_all(
    server: Server, world: World
) -> None:
    body = ask(QUESTION, stream=True, request_id="same-20", conversation_id="c-20")

    with ThreadPoolExecutor(20) as pool:
        results = list(
            pool.map(lambda _: stream_chat(server, world.keys["alice"], body), range(20))
        )

    errors = [events[-1]["data"] for events in results if events[-1]["event"] != "done"]
    assert errors == []
    finals = {events[-1]["data"]["text"] for events in results}
    assert len(finals) == 1
    assert "seven sacraments" in finals.pop()
    assert len({events[-1]["data"]["question_id"] for events in results}) == 1
    assert len(stored_answers(world, "c-20")) == 1


def test_given_a_client_disconnecting_mid_stream_when_retrying_then_one_complete_answer(
    server: Server, world: World
) -> None:
    body = ask(
        QUESTION, stream=True, request_id="drop-1", conversation_id="c-drop", bypass_cache=True
    )
    with (
        httpx.Client(timeout=30) as client,
        client.stream(
            "POST", f"{server.url}/v1/chat", json=body, headers=bearer(world.keys["alice"])
        ) as response,
    ):
        lines = response.iter_lines()
        assert any(line.startswith("event: token") for line in lines)
    # The client is gone, mid-answer; it retries with the same request_id.
    retried = stream_chat(server, world.keys["alice"], body)

    assert retried[-1]["event"] == "done"
    assert "Matrimony" in retried[-1]["data"]["text"]
    assert "replayed" not in retried[-1]["data"]  # generated again
    assert stored_answers(world, "c-drop") == [retried[-1]["data"]["text"]]


def test_given_the_server_killed_mid_generation_when_retrying_after_restart_then_done_once(
    world: World,
) -> None:
    """Given a server killed with SIGKILL mid-answer, when the request is retried on a new one,
    then one question is stored and one question (2 credits, precise) is charged."""
    quotas = get_stores(world.settings).quotas
    before = quotas.get_quota("alice")
    first = start_server(world.settings.data_dir, delay=0.2, lease=2)
    body = ask(
        QUESTION, stream=True, request_id="kill-1", conversation_id="c-kill", bypass_cache=True
    )
    started = threading.Event()

    def interrupted_client() -> None:
        try:
            with httpx.stream(
                "POST",
                f"{first.url}/v1/chat",
                json=body,
                headers=bearer(world.keys["alice"]),
                timeout=30,
            ) as response:
                for line in response.iter_lines():
                    if line.startswith("event: token"):
                        started.set()
        except httpx.HTTPError:
            pass

    client = threading.Thread(target=interrupted_client)
    client.start()
    try:
        assert started.wait(20)
        first.process.send_signal(signal.SIGKILL)
        first.process.wait(10)
        client.join(10)
        assert stored_answers(world, "c-kill") == []
        second = start_server(world.settings.data_dir, delay=0.0, lease=2)
        try:
            # The dead worker's lease (2 s) runs out while the retry waits for it.
            retried = stream_chat(second, world.keys["alice"], body)
            replayed = stream_chat(second, world.keys["alice"], body)
        finally:
            stop(second)
    finally:
        stop(first)

    assert retried[-1]["event"] == "done"
    assert "Matrimony" in retried[-1]["data"]["text"]
    assert [e["event"] for e in replayed] == ["token", "done"]
    assert stored_answers(world, "c-kill") == [retried[-1]["data"]["text"]]
    after = quotas.get_quota("alice")
    charged = (
        after.questions_used - before.questions_used,
        after.credits_used - before.credits_used,
    )
    assert charged == (1, 2)


def test_given_50_concurrent_duplicates_of_a_slow_answer_then_one_generation_and_health_answers(
    world: World,
) -> None:
    """Waiting duplicates hold no worker thread: the pool (40 threads) stays free for the
    answer itself and for /health, and the first request's lease never runs out."""
    slow = start_server(world.settings.data_dir, delay=0.05, lease=10)
    body = ask(
        QUESTION, stream=True, request_id="same-50", conversation_id="c-50", bypass_cache=True
    )
    health: list[float] = []
    finished = threading.Event()

    def probe_health() -> None:
        with httpx.Client(timeout=30) as client:
            while not finished.is_set():
                started = time.monotonic()
                assert client.get(f"{slow.url}/health").status_code == 200
                health.append(time.monotonic() - started)
                time.sleep(0.1)

    # One client for all: building one per request costs the machine more than the server.
    clients = httpx.Client(timeout=90, limits=httpx.Limits(max_connections=60))

    def duplicate_of(sent: dict[str, Any]) -> httpx.Response:
        return clients.post(f"{slow.url}/v1/chat", json=sent, headers=bearer(world.keys["alice"]))

    prober = threading.Thread(target=probe_health)
    try:
        # Loading the models (language, tokenizer) on the first question is not what is measured.
        warm_up = ask(QUESTION, conversation_id="c-50-warm-up", bypass_cache=True)
        assert duplicate_of(warm_up).status_code == 200
        prober.start()
        with ThreadPoolExecutor(50) as pool:
            responses = list(pool.map(duplicate_of, [body] * 50))
    finally:
        finished.set()
        prober.join(30)
        clients.close()
        stop(slow)

    assert [r.status_code for r in responses if r.status_code != 200] == []
    dones = [sse_events(r.text)[-1] for r in responses]
    assert [done["data"] for done in dones if done["event"] != "done"] == []
    generated = [done["data"] for done in dones if not done["data"].get("replayed")]
    assert len(generated) == 1
    assert {done["data"]["question_id"] for done in dones} == {generated[0]["question_id"]}
    assert len(stored_answers(world, "c-50")) == 1
    assert len(health) > 5
    assert max(health) < 1.0, [round(h, 2) for h in health]
