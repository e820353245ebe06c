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

Build first: ``scripts/lambda_local.sh``. Run: ``.venv/bin/python bench/lambda_init.py [--runs 5]``.
"""

from __future__ import annotations

import argparse
import json
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


def measure(name: str, runs: int, scratch: Path) -> tuple[list[float], list[float]]:
    functions = load(default_build_dir())
    tools = emulator.Tools(default_tools_dir())
    overrides = {
        "GROUNDWORK_STORAGE": "sqlite",
        "GROUNDWORK_RETRIEVAL": "keyword",
        "GROUNDWORK_DATA_DIR": str(scratch / "data"),
    }
    inits, firsts = [], []
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
        finally:
            environment.stop()
    return inits, firsts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="cold starts per function")
    args = parser.parse_args()
    print(f"| function | Init Duration ms, median of {args.runs} | min | max | first invoke ms |")
    print("|---|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory(dir=default_tools_dir()) as scratch:
        for name in SAMPLE:
            inits, firsts = measure(name, args.runs, Path(scratch))
            print(
                f"| {name} | {statistics.median(inits):.0f} | {min(inits):.0f} "
                f"| {max(inits):.0f} | {statistics.median(firsts):.0f} |"
            )


if __name__ == "__main__":
    main()
