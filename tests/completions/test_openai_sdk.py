"""The official ``openai`` package, unmodified, reads answers and citations in every mode."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import openai
import pytest
from fastapi.testclient import TestClient
from openai import AsyncOpenAI, OpenAI

from groundwork.api.app import create_app
from groundwork.errors import ApiError
from groundwork.settings import Settings
from tests.completions.conftest import ScriptedGenerator, with_generator

MESSAGES: Any = [{"role": "user", "content": "What is prayer?"}]
EXTRA = {"collection": "catechism"}


def sdk(client: TestClient) -> OpenAI:
    return OpenAI(base_url="http://testserver/v1", api_key="unused", http_client=client)


def test_given_the_sync_sdk_when_not_streaming_then_citations_are_a_top_level_field(
    cards_client: TestClient,
) -> None:
    reply = sdk(cards_client).chat.completions.create(
        model="groundwork-1", messages=MESSAGES, extra_body=EXTRA, temperature=0, user="u1"
    )

    assert "[1]" in (reply.choices[0].message.content or "")
    citations = reply.model_extra["citations"]  # type: ignore[index]
    assert citations == reply.citations  # type: ignore[attr-defined]
    assert citations[0]["document_reference"] == "3"
    assert reply.model_extra["support_score"] >= 0.95  # type: ignore[index]
    assert reply.usage is not None
    assert reply.usage.completion_tokens > 0


def test_given_the_sync_sdk_when_streaming_then_the_last_choice_chunk_carries_citations(
    cards_client: TestClient,
) -> None:
    chunks = list(
        sdk(cards_client).chat.completions.create(
            model="groundwork-1",
            messages=MESSAGES,
            extra_body=EXTRA,
            stream=True,
            stream_options={"include_usage": True},
        )
    )

    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert "lifting up of our minds" in text
    with_citations = [c for c in chunks if (c.model_extra or {}).get("citations")]
    assert len(with_citations) == 1
    last = with_citations[0]
    assert last.choices[0].finish_reason == "stop"
    assert last.model_extra["citations"][0]["document_index"] == 0  # type: ignore[index]
    assert chunks[-1].choices == []
    assert chunks[-1].usage is not None


def test_given_the_stream_helper_then_citations_are_read_from_the_chunk_events(
    cards_client: TestClient,
) -> None:
    citations: list[dict[str, Any]] = []
    with sdk(cards_client).chat.completions.stream(
        model="groundwork-1", messages=MESSAGES, extra_body=EXTRA
    ) as stream:
        for event in stream:
            if event.type == "chunk" and event.chunk.model_extra:
                citations += event.chunk.model_extra.get("citations") or []
        final = stream.get_final_completion()

    assert "lifting up of our minds" in (final.choices[0].message.content or "")
    assert [c["document_reference"] for c in citations] == ["3"]


def test_given_the_async_sdk_then_both_modes_carry_citations(cards_settings: Settings) -> None:
    async def scenario() -> tuple[Any, list[Any]]:
        transport = httpx.ASGITransport(app=create_app(cards_settings))
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as http:
            client = AsyncOpenAI(base_url="http://testserver/v1", api_key="x", http_client=http)
            whole = await client.chat.completions.create(
                model="groundwork-1", messages=MESSAGES, extra_body=EXTRA
            )
            stream = await client.chat.completions.create(
                model="groundwork-1", messages=MESSAGES, extra_body=EXTRA, stream=True
            )
            return whole, [chunk async for chunk in stream]

    whole, chunks = asyncio.run(scenario())

    assert whole.model_extra["citations"][0]["document_reference"] == "3"
    streamed = "".join(c.choices[0].delta.content or "" for c in chunks)
    assert streamed == whole.choices[0].message.content
    assert chunks[-1].model_extra["citations"] == whole.model_extra["citations"]


def test_given_a_failure_mid_stream_then_the_sdk_raises_an_api_error(
    cards_client: TestClient, cards_settings: Settings
) -> None:
    failure = ApiError(502, "generation.failed", "The model stopped answering.")
    with_generator(cards_client, cards_settings, ScriptedGenerator(["Prayer is ", failure]))
    stream = sdk(cards_client).chat.completions.create(
        model="groundwork-1", messages=MESSAGES, extra_body=EXTRA, stream=True
    )

    with pytest.raises(openai.APIError) as caught:
        for _ in stream:
            pass

    assert "The model stopped answering." in caught.value.message


def test_given_the_sdk_when_listing_models_then_the_configured_model_is_there(
    cards_client: TestClient,
) -> None:
    assert [m.id for m in sdk(cards_client).models.list()] == ["groundwork-1"]
