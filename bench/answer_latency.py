"""Answer latency over HTTP with the embedded defaults: time to first token and total.

Indexes the Baltimore Catechism answers (one card each) like bench/answer_quality.py, starts
the app in process and streams ``POST /v1/chat/completions`` for each question. Time to first
token is the time until the first content delta arrives; total, until ``[DONE]``. The first
request (models loading) is reported apart and left out of the percentiles.

    .venv/bin/python -m bench.answer_latency [--limit 200] [--quality fast|precise] [--data-dir DIR]
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from fastapi.testclient import TestClient

from bench.answer_quality import COLLECTION, DATA, build, load
from groundwork.api.app import create_app
from groundwork.settings import Settings


def ask(client: TestClient, question: str, quality: str) -> tuple[float, float]:
    """Seconds to the first content delta and to the end of the stream."""
    payload = {
        "model": "groundwork-1",
        "messages": [{"role": "user", "content": question}],
        "collection": COLLECTION,
        "quality": quality,
        "stream": True,
    }
    started = time.perf_counter()
    first = None
    with client.stream("POST", "/v1/chat/completions", json=payload) as response:
        response.raise_for_status()
        for line in response.iter_lines():
            if first is None and line.startswith("data: {"):
                choices = json.loads(line[6:]).get("choices") or [{}]
                if choices[0].get("delta", {}).get("content"):
                    first = time.perf_counter() - started
    total = time.perf_counter() - started
    return first if first is not None else total, total


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--limit", type=int, default=200, help="questions timed")
    parser.add_argument("--quality", choices=["fast", "precise"], default="precise")
    parser.add_argument(
        "--data-dir", type=Path, default=None, help="keep the index here and reuse it next time"
    )
    args = parser.parse_args()

    cards, rows = load(args.data, args.limit + 1)
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(data_dir=args.data_dir or Path(tmp), bootstrap_docs=False)
        index_s = build(settings, cards)
        with TestClient(create_app(settings)) as client:
            cold_first, cold_total = ask(client, rows[0]["question"], args.quality)
            timings = [ask(client, row["question"], args.quality) for row in rows[1:]]

    ttft = [t * 1000 for t, _ in timings]
    total = [t * 1000 for _, t in timings]
    print(
        f"Answer latency: {len(timings)} catechism questions over HTTP (streamed), "
        f"{len(cards)} cards, retrieval {settings.retrieval} ({args.quality}), "
        f"extractive composer; index built in {index_s:.1f} s"
    )
    print(
        f"first request (cold): first token {cold_first * 1000:.0f} ms, "
        f"total {cold_total * 1000:.0f} ms"
    )
    print()
    print("| ms | p50 | p95 | mean |")
    print("|---|---|---|---|")
    for name, values in (("time to first token", ttft), ("total", total)):
        print(
            f"| {name} | {percentile(values, 0.5):.1f} | {percentile(values, 0.95):.1f} | "
            f"{statistics.fmean(values):.1f} |"
        )


if __name__ == "__main__":
    main()
