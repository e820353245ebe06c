"""Grounding latency, single process: p50/p95 of one check at a typical and at the maximum size.

Typical: 5 claims against 20 facts of 1,000 characters. Maximum: a 4096-token candidate against
200 facts of 10,000 characters (the spec's limits). Texts are real: WiCE claims and the web
pages they cite. The first call is timed in a fresh state, imports and verifier set-up included.
Then, in Japanese (the Open Source Guides of ``bench/data``), typical checks on one new text
after another: a check's time should not grow with the texts the process has seen.

    .venv/bin/python bench/grounding_latency.py [--runs 30] [--verifier heuristic|model|combined]

The model verifiers run onnxruntime on one thread (the one-core budget); the first call then
includes loading the model.
"""

from __future__ import annotations

import time

_STARTED = time.perf_counter()

import argparse  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import statistics  # noqa: E402
from pathlib import Path  # noqa: E402

from groundwork.grounding.base import Verifier  # noqa: E402
from groundwork.grounding.factory import get_verifier  # noqa: E402
from groundwork.grounding.model import MAX_CANDIDATE_TOKENS, CheckRequest, Fact  # noqa: E402
from groundwork.grounding.service import check, count_spec_tokens  # noqa: E402
from groundwork.settings import Settings  # noqa: E402

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "eval" / "wice_claim_dev.jsonl"
JAPANESE = Path(__file__).resolve().parent / "data" / "opensource-guide" / "_articles" / "ja"


def _facts(sentences: list[str], count: int, size: int) -> list[Fact]:
    facts: list[Fact] = []
    stream = iter(sentences * (1 + count * size // max(1, sum(map(len, sentences)))))
    for _ in range(count):
        text = ""
        for sentence in stream:
            if len(text) + len(sentence) + 1 > size:
                break
            text = f"{text} {sentence}" if text else sentence
        facts.append(Fact(text, {"title": f"Page {len(facts)}"}))
    return facts


def _candidate(claims: list[str], max_tokens: int) -> str:
    parts: list[str] = []
    tokens = 0
    for claim in claims * 100:
        n = count_spec_tokens(claim)
        if tokens + n > max_tokens:
            break
        parts.append(claim)
        tokens += n
    return " ".join(parts)


def _percentiles(samples: list[float]) -> tuple[float, float]:
    samples = sorted(samples)
    return statistics.median(samples), samples[max(0, round(0.95 * len(samples)) - 1)]


def _time(
    request: CheckRequest, runs: int, verifier: Verifier
) -> tuple[float, float, float, float]:
    """Wall-clock and CPU p50/p95 in ms; on a shared machine CPU time is what a quiet one sees."""
    wall, cpu = [], []
    for _ in range(runs):
        started, cpu_started = time.perf_counter(), time.process_time()
        check(request, verifier)
        wall.append(1000 * (time.perf_counter() - started))
        cpu.append(1000 * (time.process_time() - cpu_started))
    return (*_percentiles(wall), *_percentiles(cpu))


def _japanese_rounds(verifier: Verifier, runs: int) -> None:
    """Typical checks in Japanese, each round on texts the process has not seen yet."""
    text = "".join(path.read_text() for path in sorted(JAPANESE.glob("*.md")))
    sentences = [f"{s.strip()}。" for s in text.split("。") if len(s.strip()) > 10]
    per_round = 150
    print("\n| Japanese: sentences seen before | p50 ms | p95 ms | runs |")
    print("|---|---|---|---|")
    for start in range(0, len(sentences) - per_round + 1, per_round):
        batch = sentences[start : start + per_round]
        request = CheckRequest("".join(batch[:5]), _facts(batch, 20, 1_000))
        p50, p95, _, _ = _time(request, runs, verifier)
        print(f"| {start:,} | {p50:.1f} | {p95:.1f} | {runs} |")


def _reference_loop() -> tuple[float, float]:
    """Wall and CPU seconds of 10 million additions: how fast this machine is just now."""
    started, cpu_started = time.perf_counter(), time.process_time()
    total = 0
    for i in range(10_000_000):
        total += i
    return time.perf_counter() - started, time.process_time() - cpu_started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument(
        "--verifier", default="heuristic", choices=["heuristic", "model", "combined"]
    )
    args = parser.parse_args()
    weights = Path(__file__).resolve().parents[1] / "models" / "verifier"
    verifier = get_verifier(
        Settings(verifier=args.verifier, bootstrap_docs=False, verifier_weights=weights)
    )
    rows = [json.loads(line) for line in DATA.read_text().splitlines() if line.strip()]
    claims = [row["claim"] for row in rows]
    sentences = [s for row in rows for s in row["evidence"]]
    typical = CheckRequest(" ".join(claims[:5]), _facts(sentences, 20, 1_000))
    largest = CheckRequest(_candidate(claims, MAX_CANDIDATE_TOKENS), _facts(sentences, 200, 10_000))

    check(typical, verifier)
    first_call = 1000 * (time.perf_counter() - _STARTED)
    # Words never seen before are stemmed once per process: time that first pass on its own.
    started = time.perf_counter()
    check(largest, verifier)
    first_largest = 1000 * (time.perf_counter() - started)
    print(f"verifier: {args.verifier}\n")
    print("| size | claims | fact characters | p50 ms | p95 ms | CPU p50 ms | CPU p95 ms | runs |")
    print("|---|---|---|---|---|---|---|---|")
    for name, request, runs in (
        ("typical", typical, args.runs),
        ("maximum", largest, max(10, args.runs // 2)),
    ):
        p50, p95, cpu50, cpu95 = _time(request, runs, verifier)
        chars = sum(len(f.text) for f in request.facts)
        n_claims = len(check(request, verifier).claims)
        print(
            f"| {name} | {n_claims} | {chars:,} | {p50:.1f} | {p95:.1f} | {cpu50:.1f} | "
            f"{cpu95:.1f} | {runs} |"
        )
    _japanese_rounds(verifier, args.runs)
    wall, cpu = _reference_loop()
    print(f"\nload average while measuring: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(
        f"reference loop (10 million additions): wall {wall:.2f} s, CPU {cpu:.2f} s "
        "(compare runs by it)"
    )
    print(f"first call, imports and verifier set-up included: {first_call:.0f} ms")
    print(f"first call at the maximum size, its 200 facts' words new: {first_largest:.0f} ms")


if __name__ == "__main__":
    main()
