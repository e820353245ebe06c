"""The chat endpoint on DynamoDB (a moto server over HTTP): one turn, a replay, the feed.

The storage contract suite covers DynamoDB's behaviour in depth; this checks that the chat
service's records (int64 ids, saved ``done`` payloads, scopes) make the round trip.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from groundwork.api.app import create_app
from groundwork.settings import Settings
from tests.chat.fixtures import SlowGenerator, answer_with, ask, bearer, seed, sse_events
from tests.moto_server import in_process


@pytest.fixture(scope="module")
def moto_url() -> Iterator[str]:

    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("AWS_ACCESS_KEY_ID", "testing")
        patch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
        patch.setenv("AWS_DEFAULT_REGION", "us-east-1")
        with in_process() as url:
            yield url


def test_given_dynamodb_storage_when_asking_and_retrying_then_one_turn_and_a_replay(
    moto_url: str, tmp_path: Path
) -> None:
    settings = Settings(
        data_dir=tmp_path / "data",
        bootstrap_docs=False,
        retrieval="keyword",
        storage="dynamodb",
        dynamodb_endpoint_url=moto_url,
        dynamodb_region="us-east-1",
        dynamodb_create_table=True,
        dynamodb_table=f"chat-{tmp_path.name}"[:200],
    )
    world = seed(settings)
    app = create_app(settings)
    answer_with(app, settings, SlowGenerator())
    headers = bearer(world.keys["alice"])
    body = ask(
        "How many sacraments are there?",
        stream=True,
        request_id="dyn-1",
        conversation_id="c-dyn",
        scope={"tags": ["sacraments"]},
    )

    with TestClient(app) as client:
        first = sse_events(client.post("/v1/chat", json=body, headers=headers).text)
        retry = sse_events(client.post("/v1/chat", json=body, headers=headers).text)
        items = client.get("/v1/conversations/c-dyn/feed", headers=headers).json()["items"]
        conversation = client.get("/v1/conversations/c-dyn", headers=headers).json()

    done = first[-1]["data"]
    assert first[-1]["event"] == "done"
    assert [e["event"] for e in retry] == ["token", "done"]
    assert retry[-1]["data"]["question_id"] == done["question_id"]
    assert [item["question_id"] for item in items] == [done["question_id"]]
    assert conversation["scope"] == {"tags": ["sacraments"]}
