"""``groundwork serve``'s access log: each request's method, path and status, never its query
string, where a client may have put a key."""

from __future__ import annotations

import threading
import time

import httpx
import pytest
import uvicorn
from fastapi import FastAPI

from groundwork.observability.access_log import log_config


def test_given_a_key_in_the_query_string_when_logged_then_the_line_has_the_path_alone(
    capfd: pytest.CaptureFixture[str],
) -> None:
    app = FastAPI()
    app.get("/v1/models")(lambda: {"data": []})
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_config=log_config()))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 20
        while not server.started:
            assert time.monotonic() < deadline, "uvicorn did not start"
            time.sleep(0.05)
        port = server.servers[0].sockets[0].getsockname()[1]
        response = httpx.get(f"http://127.0.0.1:{port}/v1/models?api_key=gw_secret&x=1")
    finally:
        server.should_exit = True
        thread.join(10)

    out, err = capfd.readouterr()
    assert response.status_code == 200
    assert '"GET /v1/models HTTP/1.1" 200' in out
    assert "gw_secret" not in out + err
