"""The backend processes the outage tests hang (SIGSTOP), resume (SIGCONT) and kill (SIGKILL):
a moto server of their own, and the local OpenSearch node of ``scripts/services.sh``."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from groundwork.local_lambda.emulator import free_port

REPO = Path(__file__).resolve().parents[1]


def _answers(url: str, timeout: float = 1.0) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=timeout):
            return True
    except OSError:
        return False


class Backend:
    """A server process; ``url`` stays the same across a restart."""

    url: str
    pid: int

    def hang(self) -> None:
        os.kill(self.pid, signal.SIGSTOP)

    def resume(self) -> None:
        os.kill(self.pid, signal.SIGCONT)

    def kill(self) -> None:
        os.kill(self.pid, signal.SIGKILL)
        deadline = time.monotonic() + 10
        while _alive(self.pid) and time.monotonic() < deadline:
            time.sleep(0.05)


def _alive(pid: int) -> bool:
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)  # reaped if it is our child
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"


class MotoServer(Backend):
    """``python -m tests.moto_server`` on a free port (empty again after a restart)."""

    def __init__(self) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen[bytes] | None = None
        self.start()

    def start(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tests.moto_server", "--port", str(self.port)],
            cwd=REPO,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        self.pid = self.process.pid
        deadline = time.monotonic() + 30
        while not _answers(f"{self.url}/moto-api/data.json"):
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("moto's server did not start")
            time.sleep(0.1)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.resume()
            self.process.terminate()
            self.process.wait(10)


class OpenSearchNode(Backend):
    """The node at ``url``, if it runs on this machine; a restart runs its own command line
    again (same data folder, same port), as the process it replaces ran it."""

    def __init__(self, url: str) -> None:
        self.url = url
        with urllib.request.urlopen(f"{url}/_nodes/_local/process", timeout=10) as reply:
            (node,) = json.load(reply)["nodes"].values()
        self.pid = int(node["process"]["id"])
        proc = Path(f"/proc/{self.pid}")
        self.command = proc.joinpath("cmdline").read_bytes().rstrip(b"\0").split(b"\0")
        variables = proc.joinpath("environ").read_bytes().rstrip(b"\0").split(b"\0")
        self.environment = dict(v.split(b"=", 1) for v in variables if b"=" in v)
        self.cwd = os.readlink(proc / "cwd")
        self.user = proc.stat().st_uid

    def restart(self, timeout: float = 240) -> float:
        """Start the node again after a kill; the seconds it took to be healthy."""
        started = time.monotonic()
        log = Path(self.cwd) / "restarted.log" if os.access(self.cwd, os.W_OK) else None
        process = subprocess.Popen(
            self.command,
            env=self.environment,
            cwd=self.cwd,
            user=self.user,
            group=self.user if self.user else None,
            extra_groups=[] if self.user else None,
            stdout=log.open("ab") if log else subprocess.DEVNULL,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        old, self.pid = self.pid, process.pid
        # ``scripts/services.sh down`` stops the node by its pid file: it must name this one.
        pid_file = Path(os.environ.get("GROUNDWORK_SERVICES_DIR") or REPO / ".services")
        pid_file = pid_file / "opensearch" / "pid"
        if pid_file.is_file() and pid_file.read_text().strip() == str(old):
            pid_file.write_text(f"{self.pid}\n")
        health = f"{self.url}/_cluster/health?wait_for_status=yellow&timeout=1s"
        while not _answers(health, timeout=2):
            if process.poll() is not None or time.monotonic() - started > timeout:
                raise RuntimeError("OpenSearch did not come back")
            time.sleep(0.5)
        return time.monotonic() - started
