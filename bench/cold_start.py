"""Cold-start import time of every Lambda handler, each in a fresh interpreter.

What Lambda's init phase pays before the first event: importing the handler module (and
everything it imports at module level). Interpreter start-up itself is excluded. Repeated
``--runs`` times; the median is reported. The target is under 1 s for functions without a
model (all of them: the embedding model loads on first use, not at import). The verdict uses
the CPU time, which other work on a shared machine inflates far less than the wall time.

With ``--layers DIR`` (the layers as built: ``.aws-sam/build``, or ``bench/package_size.py
--keep DIR``) and ``--python`` (a 3.12), each handler is imported as Lambda imports it: from
its own layers only, with no bytecode cache of its own (``/opt`` is read-only): only the
bytecode the layers ship (``layers/dependencies/compile.txt``, the groundwork package).

Run: ``.venv/bin/python bench/cold_start.py [--runs 5] [--layers DIR --python python3.12]``
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from groundwork.cli.invoke import FUNCTIONS

REPO = Path(__file__).resolve().parents[1]

PROBE = """
import sys, time
started, cpu = time.perf_counter(), time.process_time()
from groundwork.cli.invoke import FUNCTIONS, load_handler
load_handler(FUNCTIONS[sys.argv[1]], __import__("pathlib").Path(sys.argv[2]))
print(time.perf_counter() - started, time.process_time() - cpu)
"""


def measure(name: str, env: dict[str, str], python: str = sys.executable) -> tuple[float, float]:
    """Wall and CPU seconds of the import: on a busy machine the CPU time is the steadier."""
    out = subprocess.run(
        [python, "-c", PROBE, name, str(REPO)],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    wall, cpu = out.strip().splitlines()[-1].split()
    return float(wall), float(cpu)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--layers", type=Path, help="the built layers: import from them alone")
    parser.add_argument("--python", default=sys.executable, help="the interpreter (3.12)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as data:
        env = {
            **os.environ,
            "GROUNDWORK_DATA_DIR": data,
            "GROUNDWORK_BOOTSTRAP_DOCS": "false",
            "GROUNDWORK_BATCH_QUEUE_URL": "https://sqs.us-east-1.amazonaws.com/1/q",
            "AWS_DEFAULT_REGION": "us-east-1",
        }
        envs = dict.fromkeys(FUNCTIONS, env)
        if args.layers:
            sys.path.insert(0, str(REPO / "bench"))
            from package_size import function_layers

            groundwork = args.layers / "GroundworkLayer" / "python"
            if not groundwork.is_dir():
                groundwork = REPO / "layers"
            layers = function_layers()
            for name, function in FUNCTIONS.items():
                dependencies = args.layers / layers[function.logical_id][1] / "python"
                path = os.pathsep.join([str(groundwork), str(dependencies)])
                envs[name] = env | {"PYTHONPATH": path, "PYTHONDONTWRITEBYTECODE": "1"}
        else:
            for name in FUNCTIONS:  # warm the bytecode cache, as a deployed package has it
                measure(name, env)
        load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
        print(f"{os.cpu_count()} cores, load average {load} (other work slows imports)")
        print()
        print(
            f"| function | median wall s ({args.runs} runs) | min wall s | median CPU s "
            "| CPU under 1 s |"
        )
        print("|---|---:|---:|---:|---|")
        for name, function in FUNCTIONS.items():
            runs = (measure(name, envs[name], args.python) for _ in range(args.runs))
            walls, cpus = zip(*runs, strict=True)
            median, cpu = statistics.median(walls), statistics.median(cpus)
            print(
                f"| {function.logical_id} | {median:.3f} | {min(walls):.3f} "
                f"| {cpu:.3f} | {'yes' if cpu < 1 else 'NO'} |"
            )


if __name__ == "__main__":
    main()
