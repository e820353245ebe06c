"""``POST /v1/chat`` streamed: while the first token is prepared, ``: keep-alive`` comments."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from groundwork.api.app import create_app
from tests.chat.fixtures import SlowGenerator, World, answer_with, ask, bearer, sse_events

INTERVAL_S = 0.1


@pytest.fixture
def slow_client(world: World) -> Iterator[TestClient]:
    settings = world.settings.model_copy(update={"stream_keep_alive_s": INTERVAL_S})
    app = create_app(settings)
    answer_with(app, settings, SlowGenerator(delay=5 * INTERVAL_S))
    with TestClient(app) as test_client:
        yield test_client


def test_given_a_slow_first_token_when_chatting_then_keep_alives_come_first(
    slow_client: TestClient, world: World
) -> None:
    response = slow_client.post(
        "/v1/chat", json=ask("Who made us?", stream=True), headers=bearer(world.keys["bob"])
    )

    assert response.status_code == 200
    blocks = response.text.strip().split("\n\n")
    first_event = next(n for n, block in enumerate(blocks) if block.startswith("id: "))
    assert first_event >= 3
    assert set(blocks[:first_event]) == {": keep-alive"}
    events = sse_events("\n\n".join(b for b in blocks if b != ": keep-alive"))
    assert events[0]["event"] == "token"
    assert events[-1]["event"] == "done"
    assert events[-1]["data"]["text"].startswith("God made us.")
