"""A stream whose answer takes a while before its first token sends ``: keep-alive`` comments
meanwhile (every ``stream_keep_alive_s``); an answer that fails within that time is still an
HTTP error, one that fails later ends the stream with an error chunk."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from openai import OpenAI

from groundwork.api.app import create_app
from groundwork.errors import ApiError
from groundwork.generation.base import GenerationRequest
from groundwork.settings import Settings
from tests.completions.conftest import ScriptedGenerator, chat, sse_payloads, with_generator

INTERVAL_S = 0.1


class LateGenerator(ScriptedGenerator):
    """Takes ``wait_s`` before its first delta, as a model before its first token."""

    def __init__(self, deltas: list[str | Exception], wait_s: float) -> None:
        super().__init__(deltas)
        self.wait_s = wait_s

    def stream(self, request: GenerationRequest) -> Iterator[str]:
        time.sleep(self.wait_s)
        yield from super().stream(request)


@pytest.fixture
def client(cards_settings: Settings) -> Iterator[TestClient]:
    settings = cards_settings.model_copy(update={"stream_keep_alive_s": INTERVAL_S})
    with TestClient(create_app(settings)) as test_client:
        yield test_client


def answer_late(client: TestClient, settings: Settings, deltas: list[Any], wait_s: float) -> None:
    with_generator(client, settings, LateGenerator(deltas, wait_s))


def test_given_a_slow_first_token_when_streamed_then_keep_alives_come_before_it(
    client: TestClient, cards_settings: Settings
) -> None:
    answer_late(client, cards_settings, ["God made us."], wait_s=6 * INTERVAL_S)

    response = client.post("/v1/chat/completions", json=chat("Who made us?") | {"stream": True})

    assert response.status_code == 200
    lines = [line for line in response.text.splitlines() if line]
    first_token = next(n for n, line in enumerate(lines) if "God made us." in line)
    assert lines[0].startswith('data: {"id":')  # the role chunk goes out at once
    assert lines[1:first_token].count(": keep-alive") >= 3
    assert set(lines[1:first_token]) == {": keep-alive"}
    assert ": keep-alive" not in lines[first_token:]
    assert sse_payloads(response.text.replace(": keep-alive\n", ""))[-1] == "[DONE]"


def test_given_keep_alives_when_the_openai_sdk_streams_then_it_reads_the_answer(
    client: TestClient, cards_settings: Settings
) -> None:
    answer_late(client, cards_settings, ["God ", "made us."], wait_s=4 * INTERVAL_S)
    sdk = OpenAI(base_url="http://testserver/v1", api_key="unused", http_client=client)

    chunks = list(
        sdk.chat.completions.create(
            model="groundwork-1",
            messages=[{"role": "user", "content": "Who made us?"}],
            extra_body={"collection": "catechism"},
            stream=True,
        )
    )

    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == "God made us."
    assert chunks[-1].choices[0].finish_reason == "stop"


def test_given_a_failure_within_the_interval_then_it_is_still_an_http_error(
    cards_settings: Settings,
) -> None:
    # An interval far longer than retrieval takes on a loaded machine: the failure comes first.
    settings = cards_settings.model_copy(update={"stream_keep_alive_s": 30.0})
    failure = ApiError(502, "generation.failed", "The model is unreachable.")
    with TestClient(create_app(settings)) as client:
        answer_late(client, cards_settings, [failure], wait_s=0)

        response = client.post("/v1/chat/completions", json=chat("Who made us?") | {"stream": True})

    assert response.status_code == 502
    assert response.json()["error"]["code"] == "generation.failed"


def test_given_a_failure_after_keep_alives_then_the_stream_ends_with_its_error_chunk(
    client: TestClient, cards_settings: Settings
) -> None:
    failure = ApiError(502, "generation.failed", "The model is unreachable.")
    answer_late(client, cards_settings, [failure], wait_s=4 * INTERVAL_S)

    response = client.post("/v1/chat/completions", json=chat("Who made us?") | {"stream": True})

    assert response.status_code == 200
    assert ": keep-alive" in response.text.splitlines()
    payloads = sse_payloads(response.text.replace(": keep-alive\n", ""))
    assert payloads[-1] == "[DONE]"
    assert payloads[-2]["error"]["code"] == "generation.failed"
