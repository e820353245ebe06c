"""Load on ``POST /v1/chat``: concurrent streaming clients against a local uvicorn.

Starts ``groundwork serve`` in a subprocess with the embedded defaults (SQLite state, hybrid
retrieval with multilingual-e5-small, the extractive composer, this repository's docs indexed
before it starts, where ``groundwork serve`` would index them beside the load), creates a user
with a key and a grant on the default collection, then runs three phases of ``--requests``
streamed questions each, ``--clients`` at a time:

- ``fresh``: ``bypass_cache`` and a new ``request_id`` each: retrieval and generation;
- ``cached``: the same questions again: answers from the response cache;
- ``replay``: the ``fresh`` phase's ``request_id``s again: saved answers sent back.

Prints requests per second, errors, and time to first token and to ``done`` (p50/p95).

    .venv/bin/python -m bench.chat_load [--clients 50] [--requests 200] [--data-dir DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from groundwork.api import startup
from groundwork.settings import Settings
from groundwork.storage.factory import get_stores

QUESTIONS = [
    "How are citations verified?",
    "What does the grounding check return?",
    "How do I ingest a folder of documents?",
    "Which storage backends are supported?",
    "How is the response cache keyed?",
    "What happens when a client retries with the same request_id?",
    "How do I deploy the service to AWS Lambda?",
    "What is the support score?",
    "Which generators can answer questions?",
    "How does the hybrid search rank passages?",
]
REPO = Path(__file__).resolve().parents[1]


@dataclass
class Phase:
    name: str
    seconds: float = 0.0
    errors: int = 0
    first: list[float] = field(default_factory=list)
    total: list[float] = field(default_factory=list)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def api_key(settings: Settings) -> str:
    """A key of the user ``bench``, who may see the default collection."""
    accounts = get_stores(settings).accounts
    if accounts.get_user("bench") is None:
        accounts.create_user("bench", "Load benchmark")
    if accounts.get_collection(settings.default_collection) is None:
        accounts.create_collection(settings.default_collection)
    accounts.grant("bench", settings.default_collection)
    return accounts.issue_api_key("bench", "bench/chat_load.py")


def start(data_dir: Path, port: int) -> subprocess.Popen[bytes]:
    env = os.environ | {"GROUNDWORK_DATA_DIR": str(data_dir)}
    process = subprocess.Popen(
        [sys.executable, "-m", "groundwork.cli.main", "serve", "--port", str(port)],
        env=env,
        cwd=REPO,
        stdout=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError("the server exited")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/health", timeout=1).status_code == 200:
                return process
        except httpx.TransportError:
            time.sleep(0.5)
    process.kill()
    raise RuntimeError("the server did not start")


async def one(
    client: httpx.AsyncClient, key: str, question: str, request_id: str, fresh: bool, phase: Phase
) -> None:
    body = {
        "messages": [{"role": "user", "content": question}],
        "stream": True,
        "request_id": request_id,
        "bypass_cache": fresh,
    }
    started = time.perf_counter()
    first: float | None = None
    done = False
    try:
        async with client.stream(
            "POST", "/v1/chat", json=body, headers={"Authorization": f"Bearer {key}"}
        ) as response:
            if response.status_code != 200:
                await response.aread()
                phase.errors += 1
                return
            async for line in response.aiter_lines():
                if first is None and line == "event: token":
                    first = time.perf_counter() - started
                done = done or line == "event: done"
    except httpx.HTTPError:
        phase.errors += 1
        return
    if not done:
        phase.errors += 1
        return
    total = time.perf_counter() - started
    phase.first.append(first if first is not None else total)
    phase.total.append(total)


async def run_phase(
    url: str, key: str, phase: Phase, work: list[tuple[str, str]], clients: int, fresh: bool
) -> None:
    queue: asyncio.Queue[tuple[str, str]] = asyncio.Queue()
    for item in work:
        queue.put_nowait(item)
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    async with httpx.AsyncClient(base_url=url, timeout=120, limits=limits) as client:

        async def worker() -> None:
            while not queue.empty():
                question, request_id = queue.get_nowait()
                await one(client, key, question, request_id, fresh, phase)

        started = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(clients)))
        phase.seconds = time.perf_counter() - started


def percentile(values: list[float], q: int) -> float:
    if len(values) < 2:
        return values[0] if values else float("nan")
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--requests", type=int, default=200, help="per phase")
    parser.add_argument("--data-dir", type=Path, help="reuse an indexed data directory")
    args = parser.parse_args()
    data_dir = args.data_dir or Path(tempfile.mkdtemp(prefix="chat-load-")) / "data"
    settings = Settings(data_dir=data_dir)
    startup.start(settings)  # the docs, indexed before the server starts
    key = api_key(settings)
    port = free_port()
    server = start(data_dir, port)
    url = f"http://127.0.0.1:{port}"
    run = uuid.uuid4().hex[:8]
    work = [(QUESTIONS[n % len(QUESTIONS)], f"load-{run}-{n}") for n in range(args.requests)]
    phases = []
    try:
        # One request first: the models load once, outside the measurement.
        asyncio.run(run_phase(url, key, Phase("warm-up"), [(QUESTIONS[0], f"warm-{run}")], 1, True))
        for name, items, fresh in (
            ("fresh", work, True),
            ("cached", [(q, f"{rid}-again") for q, rid in work], False),
            ("replay", work, True),
        ):
            phase = Phase(name)
            asyncio.run(run_phase(url, key, phase, items, args.clients, fresh))
            phases.append(phase)
    finally:
        server.terminate()
        server.wait(30)
    print(f"{args.clients} concurrent streaming clients, {args.requests} requests per phase")
    print()
    print(
        "| phase | requests | errors | req/s | first token p50 ms | p95 ms | done p50 ms | p95 ms |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for phase in phases:
        ok = len(phase.total)
        ms = [
            f"{percentile(values, q) * 1000:.0f}"
            for values in (phase.first, phase.total)
            for q in (50, 95)
        ]
        cells = [phase.name, str(ok + phase.errors), str(phase.errors), f"{ok / phase.seconds:.1f}"]
        print("| " + " | ".join(cells + ms) + " |")


if __name__ == "__main__":
    main()
