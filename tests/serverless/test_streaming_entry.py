"""The chat function's entry point under Lambda Web Adapter: ``run.sh`` starts uvicorn on $PORT
with the app, which logs and counts each request with API Gateway's request id."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from groundwork.local_lambda.emulator import free_port
from tests.conftest import REPO

CONTEXT = json.dumps({"requestId": "lwa-request-1", "stage": "prod"})


def test_given_run_sh_when_lambda_web_adapter_starts_it_then_requests_are_served_and_logged(
    tmp_path: Path,
) -> None:
    port = free_port()
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "PORT": str(port),
        "GROUNDWORK_DATA_DIR": str(tmp_path / "data"),
        "GROUNDWORK_BOOTSTRAP_DOCS": "false",
    }
    log = (tmp_path / "server.log").open("w+")
    server = subprocess.Popen(
        ["sh", "run.sh"], cwd=REPO / "functions/api", env=env, stdout=log, stderr=subprocess.STDOUT
    )
    try:
        request = urllib.request.Request(
            f"http://127.0.0.1:{port}/health?api_key=gw_key_in_the_url",
            headers={"x-amzn-request-context": CONTEXT},
        )
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(request, timeout=2) as response:
                    body = json.loads(response.read())
                break
            except OSError:
                assert server.poll() is None, "run.sh exited"
                assert time.monotonic() < deadline, "the app did not start"
                time.sleep(0.2)
    finally:
        server.terminate()
        server.wait(timeout=10)

    assert body["status"] == "ok"
    log.seek(0)
    written = log.read()
    log.close()
    assert "gw_key_in_the_url" not in written  # no access line with the query string
    lines = [json.loads(line) for line in written.splitlines() if line.startswith("{")]
    (access,) = [line for line in lines if line.get("message") == "request"]
    assert access["correlation_id"] == "lwa-request-1"
    assert (access["path"], access["status"]) == ("/health", 200)
    assert any(line.get("Requests") == [1.0] for line in lines if "_aws" in line)
