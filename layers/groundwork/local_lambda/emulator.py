"""One function in its own execution environment under the Runtime Interface Emulator.

The environment is laid out as Lambda lays it out: the function's layers, extracted in order,
are the only content of ``/opt`` (a private mount namespace binds a folder there, so nothing
else on the machine sees it), ``LAMBDA_TASK_ROOT`` is the function's folder as built, both
read-only as on Lambda (so no bytecode cache is written there), and
``LAMBDA_RUNTIME_DIR`` holds awslambdaric and boto3, as the managed runtime holds its client and
the SDK. The runtime's bootstrap starts the interpreter (under ``AWS_LAMBDA_EXEC_WRAPPER`` when
the function sets one, as the Web Adapter's ``/opt/bootstrap`` does) with the layers on
``sys.path`` the way the managed runtime puts them there: inside Python, not through
``PYTHONPATH``, so a start script that needs them must add them itself.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from groundwork.local_lambda.functions import Function

INVOKE_PATH = "/2015-03-31/functions/function/invocations"
_REPORT = re.compile(
    r"REPORT RequestId: (?P<id>\S+)\t(?:Init Duration: [\d.]+ ms\t)?"
    r"Duration: (?P<duration>[\d.]+) ms"
)
# The emulator's REPORT line has an "Init Duration", but it times the call that starts the init
# (a fraction of a millisecond), not the init; rapid's own lines time the phases themselves.
_INIT = re.compile(r"INIT REPORT\(durationMs: (?P<ms>[\d.]+)\)")
_INVOKED = re.compile(r"INVOKE RTDONE\(status: (?P<status>\w+).*duration: (?P<ms>[\d.]+)ms\)")

#: What the managed runtime's bootstrap does, for an interpreter that is not Lambda's own.
RUNTIME_BOOTSTRAP = """#!/bin/sh
if [ -n "$AWS_LAMBDA_EXEC_WRAPPER" ]; then
  exec "$AWS_LAMBDA_EXEC_WRAPPER" python "$LAMBDA_RUNTIME_DIR/bootstrap.py"
fi
exec python "$LAMBDA_RUNTIME_DIR/bootstrap.py"
"""

BOOTSTRAP_PY = """import os, sys
version = "python%d.%d" % sys.version_info[:2]
sys.path[0:1] = [
    os.environ["LAMBDA_TASK_ROOT"],
    "/opt/python/lib/%s/site-packages" % version,
    "/opt/python",
    os.environ["LAMBDA_RUNTIME_DIR"],
]
from awslambdaric.__main__ import main
main(["awslambdaric", os.environ["_HANDLER"]])
"""


@dataclass(frozen=True)
class Tools:
    """What ``scripts/lambda_local.sh tools`` builds, under its cache folder."""

    root: Path

    @property
    def rie(self) -> Path:
        return self.root / "tools" / "bin" / "aws-lambda-rie"

    @property
    def adapter_layer(self) -> Path:
        return self.root / "adapter-layer"

    def runtime(self, runtime: str) -> Path:
        return self.root / "runtime" / runtime

    def missing(self, runtimes: set[str]) -> list[str]:
        paths = [self.rie, self.adapter_layer / "extensions" / "lambda-adapter"]
        for runtime in sorted(runtimes):
            paths += [self.runtime(runtime) / "bin" / "python"]
            paths += [self.runtime(runtime) / "var-runtime" / "awslambdaric"]
        return [str(p) for p in paths if not p.exists()]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def lay_out(destination: Path, layers: list[Path]) -> None:
    """Extract the layers in order into one folder, as Lambda does under ``/opt``."""
    if destination.exists():
        shutil.rmtree(destination)
    destination.mkdir(parents=True)
    for layer in layers:
        try:  # hard links: the dependency layer is hundreds of megabytes
            shutil.copytree(layer, destination, copy_function=os.link, dirs_exist_ok=True)
        except OSError:
            shutil.copytree(layer, destination, dirs_exist_ok=True)


def _private_mount() -> list[str]:
    # As root a mount namespace is enough; otherwise a user namespace maps us to root in it.
    flags = ["-m"] if os.geteuid() == 0 else ["-r", "-m"]
    return ["unshare", *flags, "--propagation", "private", "--"]


@dataclass
class Environment:
    """A started emulator: ``url`` takes invocations; REPORT lines are kept as they come."""

    function: Function
    url: str
    process: subprocess.Popen[bytes]
    log_path: Path
    echo: bool = False  # copy the function's output to stderr, prefixed with its name
    reports: list[dict[str, Any]] = field(default_factory=list)
    init_ms: list[float] = field(default_factory=list)  # each init phase's duration
    invoke_ms: list[float] = field(default_factory=list)  # each invoke's, init excluded
    lines: list[str] = field(default_factory=list)

    def read_output(self) -> None:
        assert self.process.stdout is not None
        with self.log_path.open("a", encoding="utf-8") as log:
            for raw in self.process.stdout:
                line = raw.decode("utf-8", "replace")
                log.write(line)
                log.flush()
                if self.echo:
                    sys.stderr.write(f"[{self.function.name}] {line}")
                self.lines.append(line)
                if match := _REPORT.search(line):
                    self.reports.append(
                        {"request_id": match["id"], "duration_ms": float(match["duration"])}
                    )
                elif match := _INIT.search(line):
                    self.init_ms.append(float(match["ms"]))
                elif match := _INVOKED.search(line):
                    self.invoke_ms.append(float(match["ms"]))

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()
        else:  # the emulator is gone; its runtime and extensions may not be
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)


def function_environment(
    function: Function, tools: Tools, overrides: dict[str, str], runtime_api: str
) -> dict[str, str]:
    """The template's variables, then the caller's ``GROUNDWORK_*``/``AWS_*``/… settings."""
    runtime = tools.runtime(function.runtime)
    env = {
        "PATH": f"{runtime / 'bin'}:/usr/local/bin:/usr/bin:/bin:/opt/bin",
        "LANG": "en_US.UTF-8",
        "TZ": ":UTC",
        "LAMBDA_TASK_ROOT": function.code,
        "LAMBDA_RUNTIME_DIR": str(runtime / "var-runtime"),
        "_HANDLER": function.handler,
        "AWS_EXECUTION_ENV": f"AWS_Lambda_{function.runtime}",
        "AWS_LAMBDA_FUNCTION_NAME": function.name,
        "AWS_LAMBDA_FUNCTION_MEMORY_SIZE": str(function.memory),
        "AWS_LAMBDA_FUNCTION_TIMEOUT": str(function.timeout),
        "AWS_LAMBDA_RUNTIME_API": runtime_api,
        "AWS_REGION": "us-east-1",
        "AWS_DEFAULT_REGION": "us-east-1",
        **function.environment,
    }
    if "PORT" in env:  # the web app's port under the adapter: a free one, not the template's
        env["PORT"] = str(free_port())
    passed = ("GROUNDWORK_", "AWS_", "POWERTOOLS_")
    for name, value in overrides.items():
        if name.startswith(passed) and not name.startswith(("AWS_LAMBDA_", "AWS_LWA_")):
            env[name] = value
    return env


def start(
    function: Function,
    tools: Tools,
    workdir: Path,
    overrides: dict[str, str],
    *,
    echo: bool = False,
) -> Environment:
    """Lay out ``/opt`` for the function and start the emulator on a free loopback port."""
    layers = [Path(p) for p in function.layers]
    for arn in function.external_layers:
        if "LambdaAdapterLayer" not in arn:
            raise ValueError(f"{function.name}: cannot lay out the layer {arn}")
        layers.append(tools.adapter_layer)
    home = workdir / function.name
    lay_out(home / "opt", layers)
    runtime_dir = tools.runtime(function.runtime) / "var-runtime"
    (runtime_dir / "bootstrap.py").write_text(BOOTSTRAP_PY)
    bootstrap = home / "bootstrap"
    bootstrap.write_text(RUNTIME_BOOTSTRAP)
    bootstrap.chmod(0o755)
    port, api = free_port(), f"127.0.0.1:{free_port()}"
    command = [
        *_private_mount(),
        "/bin/sh",
        "-c",
        # Read-only, as on Lambda: no bytecode cache is written beside the layers or the code.
        'mount --bind "$0" /opt && mount -o remount,ro,bind /opt'
        ' && mount --bind "$1" "$1" && mount -o remount,ro,bind "$1" && shift && exec "$@"',
        str(home / "opt"),
        function.code,
        str(tools.rie),
        "--runtime-interface-emulator-address",
        f"127.0.0.1:{port}",
        "--runtime-api-address",
        api,
        str(bootstrap),
        function.handler,
    ]
    process = subprocess.Popen(
        command,
        cwd=function.code,
        env=function_environment(function, tools, overrides, api),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,  # one process group: the emulator, runtime and extensions
    )
    environment = Environment(
        function, f"http://127.0.0.1:{port}", process, home / "log.txt", echo=echo
    )
    threading.Thread(target=environment.read_output, daemon=True).start()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(
                f"{function.name}: the emulator exited: {''.join(environment.lines)}"
            )
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return environment
        except OSError:
            time.sleep(0.05)
    environment.stop()
    raise RuntimeError(f"{function.name}: the emulator did not listen on {port}")
