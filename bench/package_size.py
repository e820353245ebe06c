"""Unzipped package size of every Lambda function, layers included, against the 250 MB limit.

The dependency layer is built as ``sam build`` builds it (``layers/dependencies/Makefile``):
``requirements.txt`` installed for Lambda's platform (manylinux x86_64, CPython 3.12, wheels
only) into a temporary folder, then the packages of ``prune.txt`` removed. The groundwork
layer and each function's code are measured from the checkout. boto3 is not installed: the
Python runtime provides it.

With a Python 3.12 (``--python``, default ``python3.12`` on the PATH), every handler is then
imported from the layers alone (a bare 3.12 virtual environment, ``PYTHONPATH`` = function,
groundwork layer, dependency layer) and the embedding model is run once, so that a pruned
package that is still needed shows up here rather than in Lambda.

Run: ``.venv/bin/python bench/package_size.py [--keep DIR]`` (downloads wheels once; pip's
cache makes later runs quick).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from groundwork.cli.invoke import FUNCTIONS

REPO = Path(__file__).resolve().parents[1]
LAYER = REPO / "layers" / "dependencies"
LIMIT = 250 * 1024 * 1024  # Lambda: function code and all layers, unzipped
MB = 1024 * 1024

SMOKE = """
import importlib, sys
importlib.import_module(sys.argv[1])
from groundwork.embeddings.factory import get_embedder
assert len(get_embedder().embed(["a cold start"])[0]) == 384
"""


def tree_size(path: Path) -> int:
    return sum(
        f.stat().st_size
        for f in path.rglob("*")
        if f.is_file() and "__pycache__" not in f.parts and ".egg-info" not in str(f)
    )


def install(target: Path) -> None:
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--target",
            str(target),
            # Lambda's python3.12 runtime (Amazon Linux 2023, glibc 2.34) takes manylinux_2_28
            # wheels, which onnxruntime now ships exclusively.
            *("--platform", "manylinux_2_28_x86_64", "--platform", "manylinux2014_x86_64"),
            "--implementation",
            "cp",
            "--python-version",
            "3.12",
            "--only-binary=:all:",
            "-r",
            str(LAYER / "requirements.txt"),
        ],
        check=True,
    )


def prune(target: Path) -> list[str]:
    """Remove what ``prune.txt`` names, as the Makefile does; returns what was there."""
    removed = []
    for line in (LAYER / "prune.txt").read_text().splitlines():
        pattern = re.sub(r"#.*", "", line).strip()
        for path in target.glob(pattern) if pattern else ():
            shutil.rmtree(path) if path.is_dir() else path.unlink()
            removed.append(path.name)
    return removed


def smoke(target: Path, scratch: Path, python: str | None) -> dict[str, str]:
    """Import each handler on python3.12 from the layers alone; 'ok' or the last error line."""
    usable = python and subprocess.run([python, "-c", ""], capture_output=True).returncode == 0
    if not usable:
        return {}
    assert python is not None
    venv = scratch / "py312"
    subprocess.run([python, "-m", "venv", "--without-pip", str(venv)], check=True)
    results = {}
    # The chat function's entry is the app factory run.sh hands to uvicorn.
    modules = [(f.logical_id, f.code_dir, f.module) for f in FUNCTIONS.values()]
    modules.append(("ChatFunction", "functions/api", "streaming"))
    for name, code_dir, module in modules:
        path = os.pathsep.join([str(REPO / code_dir), str(REPO / "layers"), str(target)])
        env = {
            "PATH": os.environ["PATH"],
            "PYTHONPATH": path,
            "GROUNDWORK_DATA_DIR": str(scratch / "data"),
            "GROUNDWORK_BOOTSTRAP_DOCS": "false",
            "AWS_DEFAULT_REGION": "us-east-1",
        }
        done = subprocess.run(
            [str(venv / "bin" / "python"), "-c", SMOKE, module],
            env=env,
            cwd=scratch,
            capture_output=True,
            text=True,
        )
        lines = done.stderr.strip().splitlines()
        results[name] = "ok" if done.returncode == 0 else lines[-1]
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", type=Path, help="install here and keep it (reused if present)")
    parser.add_argument(
        "--python", default=shutil.which("python3.12"), help="a Python 3.12 for the import check"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        target = args.keep or Path(scratch) / "python"
        if not (target.exists() and any(target.iterdir())):
            install(target)
        before = tree_size(target)
        removed = prune(target)
        packages = sorted(
            ((tree_size(p), p.name) for p in target.iterdir() if p.is_dir()), reverse=True
        )
        dependencies = tree_size(target)
        imports = smoke(target, Path(scratch), args.python)
    groundwork = tree_size(REPO / "layers/groundwork")

    print("| layer | unzipped MB |")
    print("|---|---:|")
    print(f"| groundwork (layers/groundwork) | {groundwork / MB:.1f} |")
    print(f"| dependencies, as installed | {before / MB:.1f} |")
    print(f"| dependencies, after prune.txt | {dependencies / MB:.1f} |")
    print()
    print("pruned:", ", ".join(sorted(removed)) or "nothing (already pruned)")
    print("largest packages:", ", ".join(f"{n} {s / MB:.1f}" for s, n in packages[:8]))
    print()
    print("| function | code MB | total MB (with layers) | of 250 MB | fits | imports on 3.12 |")
    print("|---|---:|---:|---:|---|---|")
    functions = {f.logical_id: f.code_dir for f in FUNCTIONS.values()}
    functions["ChatFunction"] = "functions/api"  # plus the Lambda Web Adapter layer (~ few MB)
    for name, code_dir in functions.items():
        code = tree_size(REPO / code_dir)
        total = code + groundwork + dependencies
        imported = imports.get(name, "no Python 3.12")
        print(
            f"| {name} | {code / MB:.3f} | {total / MB:.1f} | {100 * total / LIMIT:.0f}% "
            f"| {'yes' if total < LIMIT else 'NO'} | {imported} |"
        )


if __name__ == "__main__":
    main()
