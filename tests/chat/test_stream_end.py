"""How a streamed answer ends when it does not end well, through the chat function's app
(``functions/api/streaming.py``: the app and its per-request telemetry) under uvicorn, as the
Web Adapter runs it: a client that leaves stops the generation, before its first token or after,
and a stream that fails after its 200 counts in ``StreamFailures``, the metric of the template's
``ChatStreamFailuresAlarm``."""

from __future__ import annotations

import importlib.util
import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import httpx
import pytest
import uvicorn
from fastapi.testclient import TestClient

from groundwork.local_lambda.emulator import free_port
from groundwork.observability.entry import STREAM_FAILURES
from groundwork.retrieval.base import RetrievalUnavailable
from tests.chat.fixtures import SlowGenerator, World, answer_with, ask, bearer, sse_events
from tests.conftest import REPO
from tests.serverless.test_template import load_template

if TYPE_CHECKING:
    from fastapi import FastAPI

    from groundwork.generation.base import GenerationRequest
    from groundwork.settings import Settings

QUESTION = "How many sacraments are there?"  # its answer is twenty-odd words


class WatchedGenerator(SlowGenerator):
    """Waits ``first_delay`` before its first word and ``delay`` before each; counts the words it
    gave, and whether it was closed before its end."""

    def __init__(self, first_delay: float, delay: float) -> None:
        super().__init__(delay=delay)
        self.first_delay = first_delay
        self.words = 0
        self.closed = threading.Event()

    def stream(self, request: GenerationRequest) -> Iterator[str]:
        time.sleep(self.first_delay)
        try:
            for word in super().stream(request):
                self.words += 1
                yield word
        except GeneratorExit:
            self.closed.set()
            raise


def chat_function_app(settings: Settings) -> FastAPI:
    """``functions/api/streaming.py``'s app, as run.sh starts it, on ``settings``."""
    spec = importlib.util.spec_from_file_location(
        "chat_function_streaming", REPO / "functions" / "api" / "streaming.py"
    )
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(module, "create_groundwork_app", lambda: _groundwork_app(settings))
        app: FastAPI = module.create_app()
    return app


def _groundwork_app(settings: Settings) -> FastAPI:
    from groundwork.api.app import create_app

    return create_app(settings)


@contextmanager
def serve(app: FastAPI) -> Iterator[str]:
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


@pytest.mark.parametrize(
    ("leave_after", "keep_alive_s", "first_delay_s"),
    [
        ("event: token", 10.0, 0.0),  # mid-answer
        (": keep-alive", 0.1, 1.0),  # while the first token is awaited, after the 200
    ],
)
def test_given_a_client_that_leaves_a_stream_then_the_generation_stops(
    world: World, leave_after: str, keep_alive_s: float, first_delay_s: float
) -> None:
    delay_s = 0.1
    settings = world.settings.model_copy(update={"stream_keep_alive_s": keep_alive_s})
    app = chat_function_app(settings)
    generator = WatchedGenerator(first_delay_s, delay_s)
    answer_with(app, settings, generator)
    body = ask(QUESTION, stream=True, request_id="leaves-1", bypass_cache=True)

    with serve(app) as url:
        with (
            httpx.Client(timeout=30) as client,
            client.stream(
                "POST", f"{url}/v1/chat", json=body, headers=bearer(world.keys["alice"])
            ) as response,
        ):
            assert response.status_code == 200
            assert any(line.startswith(leave_after) for line in response.iter_lines())
            words_when_left = generator.words
        # The client is gone: the next word it would have been sent is the generation's last.
        assert generator.closed.wait(timeout=10 + first_delay_s), "the generation went on"
        time.sleep(3 * delay_s)
        assert generator.finished == 0
        assert generator.words <= words_when_left + 2
        # Its request_id was released: the retry generates the answer, in full.
        retried = httpx.post(
            f"{url}/v1/chat", json=body, headers=bearer(world.keys["alice"]), timeout=60
        )
        done = sse_events(retried.text.replace(": keep-alive\n\n", ""))[-1]
        assert done["event"] == "done"
        assert "Matrimony" in done["data"]["text"]
        assert generator.started == 2


@pytest.mark.parametrize(
    ("failure", "code"),
    [
        (RuntimeError("the model went away"), "internal.error"),
        (RetrievalUnavailable("the index hung"), "retrieval.unavailable"),
    ],
)
def test_given_a_stream_failing_after_its_200_in_lambda_then_stream_failures_counts_it(
    world: World,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    failure: Exception,
    code: str,
) -> None:
    monkeypatch.setenv("AWS_LAMBDA_FUNCTION_NAME", "groundwork-ChatFunction")
    app = chat_function_app(world.settings)
    generator = SlowGenerator()
    generator.fail_after = 2
    generator.failure = failure
    answer_with(app, world.settings, generator)

    with TestClient(app) as client:
        failed = client.post(
            "/v1/chat", json=ask(QUESTION, stream=True), headers=bearer(world.keys["alice"])
        )
        generator.fail_after = None
        succeeded = client.post(
            "/v1/chat", json=ask("Who made us?", stream=True), headers=bearer(world.keys["alice"])
        )

    assert failed.status_code == succeeded.status_code == 200
    assert sse_events(failed.text)[-1]["event"] == "error"
    assert sse_events(failed.text)[-1]["data"]["error"]["code"] == code
    assert sse_events(succeeded.text)[-1]["event"] == "done"
    emitted = [
        json.loads(line) for line in capsys.readouterr().out.splitlines() if '"_aws"' in line
    ]
    counted = [m for m in emitted if STREAM_FAILURES in m]
    assert [m[STREAM_FAILURES] for m in counted] == [[1.0]]  # the failed stream's request only
    # The alarm watches that metric, with those dimensions.
    alarm = load_template()["Resources"]["ChatStreamFailuresAlarm"]["Properties"]
    dimensions: dict[str, Any] = {d["Name"]: d["Value"] for d in alarm["Dimensions"]}
    assert (alarm["Namespace"], alarm["MetricName"]) == ("Groundwork", STREAM_FAILURES)
    (declared,) = counted[0]["_aws"]["CloudWatchMetrics"]
    assert declared["Namespace"] == alarm["Namespace"]
    assert [set(names) for names in declared["Dimensions"]] == [set(dimensions)]
    assert dimensions == {
        "service": counted[0]["service"],
        "function_name": {"Ref": "ChatFunction"},
    }
