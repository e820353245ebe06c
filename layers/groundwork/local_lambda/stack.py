"""Start every function of a build, and stop them all, whatever happens in between."""

from __future__ import annotations

import os
import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from groundwork.local_lambda import emulator
from groundwork.local_lambda.functions import load

if TYPE_CHECKING:
    from collections.abc import Iterator

    from groundwork.local_lambda.emulator import Environment


class NotBuilt(Exception):
    """The build or the tools are missing; the message says what and how to get them."""


def default_tools_dir() -> Path:
    return Path(os.environ.get("GROUNDWORK_LAMBDA_DIR") or ".lambda-local").resolve()


def default_build_dir() -> Path:
    default = default_tools_dir() / "sam-build"
    return Path(os.environ.get("GROUNDWORK_SAM_BUILD_DIR") or default).resolve()


@contextmanager
def running(
    build_dir: Path, tools_dir: Path, overrides: dict[str, str], *, echo: bool = False
) -> Iterator[dict[str, Environment]]:
    """Every function started under its own emulator; all stopped on the way out."""
    if not (build_dir / "functions.json").is_file():
        raise NotBuilt(f"no build in {build_dir}: run scripts/lambda_local.sh")
    functions = load(build_dir)
    tools = emulator.Tools(tools_dir)
    if missing := tools.missing({f.runtime for f in functions.values()}):
        raise NotBuilt(f"missing {', '.join(missing)}: run scripts/lambda_local.sh tools")
    workdir = Path(tempfile.mkdtemp(prefix="run-", dir=tools_dir))
    overrides = dict(overrides)
    # The template's data folder, /tmp/groundwork, would be shared by every run on the machine.
    overrides.setdefault("GROUNDWORK_DATA_DIR", str(workdir / "data"))
    environments: dict[str, Environment] = {}
    try:
        for function in functions.values():
            environments[function.name] = emulator.start(
                function, tools, workdir, overrides, echo=echo
            )
        yield environments
    finally:
        for environment in environments.values():
            environment.stop()
        shutil.rmtree(workdir, ignore_errors=True)
