"""``stream: true``: chunks, one citations chunk last, usage when asked, errors in-band."""

import asyncio
import itertools
import json
from collections.abc import Iterator
from typing import Any

from fastapi.testclient import TestClient

from groundwork.answer import confidence
from groundwork.answer.service import AnswerService
from groundwork.api import answering
from groundwork.api.app import create_app
from groundwork.errors import ApiError
from groundwork.generation.base import GenerationRequest, Generator
from groundwork.retrieval.factory import get_retriever
from groundwork.settings import Settings
from tests.completions.conftest import ScriptedGenerator, chat, sse_payloads, with_generator


def stream(client: TestClient, payload: dict[str, Any]) -> list[Any]:
    response = client.post("/v1/chat/completions", json=payload | {"stream": True})
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/event-stream")
    return sse_payloads(response.text)


def test_given_stream_true_when_answered_then_chunks_follow_the_openai_order(
    cards_client: TestClient,
) -> None:
    payload = chat("How many sacraments are there? What is prayer?", collection="catechism")
    whole = cards_client.post("/v1/chat/completions", json=payload).json()

    chunks = stream(cards_client, payload)

    assert chunks[-1] == "[DONE]"
    chunks = chunks[:-1]
    assert {c["object"] for c in chunks} == {"chat.completion.chunk"}
    assert len({c["id"] for c in chunks}) == 1
    assert chunks[0]["choices"][0]["delta"] == {"role": "assistant", "content": ""}
    content = [c["choices"][0]["delta"]["content"] for c in chunks[1:-1]]
    assert all(content)
    assert "".join(content) == whole["choices"][0]["message"]["content"]
    assert all(c["choices"][0]["finish_reason"] is None for c in chunks[:-1])
    last = chunks[-1]
    assert last["choices"] == [{"index": 0, "delta": {}, "finish_reason": "stop"}]
    assert [c for c in chunks if "citations" in c] == [last]
    assert last["citations"] == whole["citations"]
    assert last["support_score"] == whole["support_score"]
    assert last["answerability"] == whole["answerability"]
    assert last["confidence"] == whole["confidence"]
    assert last["refusal_reason"] is whole["refusal_reason"] is None
    assert 0.0 <= whole["answerability"] <= 1.0
    assert 0.0 <= whole["confidence"] <= 1.0
    assert not any("usage" in c for c in chunks)


def test_given_include_usage_when_streamed_then_a_usage_chunk_follows_the_citations(
    cards_client: TestClient,
) -> None:
    payload = chat("What is prayer?", collection="catechism")
    whole = cards_client.post("/v1/chat/completions", json=payload).json()

    chunks = stream(cards_client, payload | {"stream_options": {"include_usage": True}})

    assert chunks[-1] == "[DONE]"
    usage_chunk = chunks[-2]
    assert usage_chunk["choices"] == []
    assert usage_chunk["usage"] == whole["usage"]
    assert "citations" in chunks[-3]


def test_given_a_failure_mid_stream_then_the_stream_ends_with_an_error_chunk(
    cards_client: TestClient, cards_settings: Settings
) -> None:
    failure = ApiError(502, "generation.failed", "The model stopped answering.")
    with_generator(cards_client, cards_settings, ScriptedGenerator(["God made us. ", failure]))

    chunks = stream(cards_client, chat("Who made us?", collection="catechism"))

    assert chunks[-1] == "[DONE]"
    assert chunks[-2] == {
        "error": {
            "message": "The model stopped answering.",
            "type": "server_error",
            "param": None,
            "code": "generation.failed",
        }
    }
    assert "God made us." in json.dumps(chunks[1])
    assert not any("citations" in c for c in chunks[:-1])


def test_given_a_bug_mid_stream_then_an_internal_error_chunk_hides_the_detail(
    cards_client: TestClient, cards_settings: Settings
) -> None:
    generator = ScriptedGenerator(["God made us. ", RuntimeError("secret")])
    with_generator(cards_client, cards_settings, generator)

    chunks = stream(cards_client, chat("Who made us?", collection="catechism"))

    assert chunks[-2]["error"]["code"] == "internal.error"
    assert "secret" not in chunks[-2]["error"]["message"]
    assert generator.closed


def test_given_a_failure_before_the_first_token_then_it_is_an_http_error(
    cards_client: TestClient, cards_settings: Settings
) -> None:
    failure = ApiError(504, "generation.timeout", "The model did not answer in time.")
    with_generator(cards_client, cards_settings, ScriptedGenerator([failure]))

    response = cards_client.post("/v1/chat/completions", json=chat("Who made us?", stream=True))

    assert response.status_code == 504
    assert response.json()["error"]["code"] == "generation.timeout"


class EndlessGenerator(Generator):
    """Writes forever, until its consumer closes it."""

    def __init__(self) -> None:
        self.pulled = 0
        self.closed = asyncio.Event()

    def stream(self, request: GenerationRequest) -> Iterator[str]:
        try:
            for n in itertools.count():
                self.pulled += 1
                yield f"word{n} "
        finally:
            self.closed.set()


def test_given_a_client_that_disconnects_then_generation_stops(cards_settings: Settings) -> None:
    generator = EndlessGenerator()
    app = create_app(cards_settings)
    app.dependency_overrides[answering.answer_service] = lambda: AnswerService(
        get_retriever(cards_settings), generator, k=5
    )
    body = json.dumps(chat("Who made us?", collection="catechism", stream=True)).encode()

    async def scenario() -> int:
        chunks: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        disconnected = asyncio.Event()
        requested = False

        async def receive() -> dict[str, Any]:
            nonlocal requested
            if not requested:
                requested = True
                return {"type": "http.request", "body": body, "more_body": False}
            await disconnected.wait()
            return {"type": "http.disconnect"}

        async def send(message: dict[str, Any]) -> None:
            await chunks.put(message)

        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": "POST",
            "path": "/v1/chat/completions",
            "raw_path": b"/v1/chat/completions",
            "query_string": b"",
            "headers": [(b"content-type", b"application/json")],
            "client": ("127.0.0.1", 1),
            "server": ("testserver", 80),
            "scheme": "http",
            "root_path": "",
        }
        task = asyncio.create_task(app(scope, receive, send))
        assert (await chunks.get())["status"] == 200
        for _ in range(5):
            await chunks.get()
        disconnected.set()
        await asyncio.wait_for(generator.closed.wait(), timeout=10)
        await asyncio.wait_for(task, timeout=10)
        return generator.pulled

    pulled = asyncio.run(scenario())

    assert pulled < 1000


def test_given_a_question_the_cards_do_not_answer_then_confidence_is_low_and_it_says_why(
    cards_client: TestClient,
) -> None:
    answered = cards_client.post(
        "/v1/chat/completions", json=chat("What is prayer?", collection="catechism")
    ).json()
    refused = cards_client.post(
        "/v1/chat/completions",
        json=chat("What is the capital of Peru?", collection="catechism"),
    ).json()
    streamed = stream(cards_client, chat("What is the capital of Peru?", collection="catechism"))

    assert answered["confidence"] >= confidence.THRESHOLD > refused["confidence"]
    assert answered["answerability"] > refused["answerability"]
    assert answered["refusal_reason"] is None
    assert refused["citations"] == []
    assert refused["refusal_reason"] in ("no_relevant_passage", "passages_do_not_answer")
    assert "could not find" in refused["choices"][0]["message"]["content"]
    assert streamed[-2]["answerability"] == refused["answerability"]
    assert streamed[-2]["confidence"] == refused["confidence"]
    assert streamed[-2]["refusal_reason"] == refused["refusal_reason"]
