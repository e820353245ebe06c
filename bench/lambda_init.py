"""Each function's init duration as the Lambda Runtime Interface Emulator reports it.

Every run starts the function in a fresh execution environment (``sam build``'s code and
layers under ``/opt``, awslambdaric on the template's runtime, the chat function behind the
Web Adapter) and invokes it once with its sample event. The emulator logs
``INIT REPORT(durationMs: ...)``: the init phase, from starting the runtime (and extensions)
to the runtime's first ``/next``; for the chat function that is the adapter, uvicorn and the
app until the adapter's readiness check passes. (Its ``REPORT`` line's ``Init Duration`` times
only the call that starts the init, a fraction of a millisecond, so it is not used.) The first
invoke's own duration (``INVOKE RTDONE``) is printed beside it: what the app defers to first
use lands there. Settings: SQLite state and the keyword index in a scratch folder, no AWS.

Build first: ``scripts/lambda_local.sh``. Run: ``.venv/bin/python bench/lambda_init.py [--runs 5]
[--function ApiFunction ...]``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

import httpx

from groundwork.local_lambda import emulator
from groundwork.local_lambda.functions import load
from groundwork.local_lambda.stack import default_build_dir, default_tools_dir

REPO = Path(__file__).resolve().parents[1]
EVENTS = REPO / "events"
HEALTH = json.loads((EVENTS / "api_health.json").read_text())
SAMPLE = {
    "ChatFunction": HEALTH,
    "ApiFunction": HEALTH,
    "GroundingFunction": json.loads((EVENTS / "grounding_check.json").read_text()),
    "ScopeFunction": json.loads((EVENTS / "scope_resolve.json").read_text()),
    "BatchEnqueueFunction": {"Records": []},
    "BatchWorkerFunction": json.loads((EVENTS / "sqs_batch_line.json").read_text()),
}


def session_cpu_ms(session: int) -> float:
    """CPU time so far of the processes of one session (the emulator, the runtime and the
    extensions it starts): on a busy machine it grows far less than the wall time does."""
    ticks = 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rpartition(")")[2].split()
        except OSError:  # the process is gone
            continue
        if int(fields[3]) == session:  # then utime and stime, in clock ticks
            ticks += int(fields[11]) + int(fields[12])
    return 1000 * ticks / os.sysconf("SC_CLK_TCK")


def measure(name: str, runs: int, scratch: Path) -> tuple[list[float], list[float], list[float]]:
    functions = load(default_build_dir())
    tools = emulator.Tools(default_tools_dir())
    overrides = {
        "GROUNDWORK_STORAGE": "sqlite",
        "GROUNDWORK_RETRIEVAL": "keyword",
        "GROUNDWORK_DATA_DIR": str(scratch / "data"),
    }
    inits, firsts, cpus = [], [], []
    for _ in range(runs):
        environment = emulator.start(functions[name], tools, scratch, overrides)
        try:
            httpx.post(environment.url + emulator.INVOKE_PATH, json=SAMPLE[name], timeout=300)
            deadline = time.monotonic() + 5
            while not environment.reports and time.monotonic() < deadline:
                time.sleep(0.05)
            if not (environment.init_ms and environment.invoke_ms):
                raise RuntimeError(f"{name}: no INIT REPORT:\n{''.join(environment.lines)}")
            inits.append(environment.init_ms[0])
            firsts.append(environment.invoke_ms[0])
            cpus.append(session_cpu_ms(environment.process.pid))
        finally:
            environment.stop()
    return inits, firsts, cpus


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="cold starts per function")
    parser.add_argument(
        "--function", action="append", choices=list(SAMPLE), help="only these (repeatable)"
    )
    args = parser.parse_args()
    load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    print(f"{os.cpu_count()} cores, load average {load} (other work inflates the wall times)")
    print()
    print(
        f"| function | Init Duration ms, median of {args.runs} | min | max | first invoke ms "
        "| CPU ms, init and first invoke |"
    )
    print("|---|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory(dir=default_tools_dir()) as scratch:
        for name in args.function or SAMPLE:
            inits, firsts, cpus = measure(name, args.runs, Path(scratch))
            print(
                f"| {name} | {statistics.median(inits):.0f} | {min(inits):.0f} "
                f"| {max(inits):.0f} | {statistics.median(firsts):.0f} "
                f"| {statistics.median(cpus):.0f} |"
            )


if __name__ == "__main__":
    main()
