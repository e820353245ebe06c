"""request_id replays, the response cache, quotas, and failures that must leave no trace."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
from fastapi.testclient import TestClient

from groundwork.api.app import create_app
from groundwork.domain.cards import Card
from groundwork.retrieval.factory import get_retriever
from groundwork.storage.base import SourceRecord
from groundwork.storage.errors import StorageUnavailable
from groundwork.storage.factory import get_storage, get_stores
from tests.chat.fixtures import SlowGenerator, World, answer_with, ask, bearer, sse_events


def post(client: TestClient, world: World, body: dict[str, Any], user: str = "alice") -> Any:
    return client.post("/v1/chat", json=body, headers=bearer(world.keys[user]))


def questions_in(world: World, conv_id: str) -> int:
    conversation = get_stores(world.settings).conversations.get_conversation(conv_id)
    return conversation.questions if conversation else 0


def test_given_a_saved_answer_when_retrying_the_request_id_then_one_token_one_done_no_new_question(
    client: TestClient, world: World, generator: SlowGenerator
) -> None:
    body = ask("How many sacraments are there?", stream=True, request_id="r-1")
    first = sse_events(post(client, world, body).text)

    retry = sse_events(post(client, world, body).text)

    assert [e["event"] for e in retry] == ["token", "done"]
    assert retry[0]["data"]["text"] == first[-1]["data"]["text"]
    assert retry[1]["data"]["question_id"] == first[-1]["data"]["question_id"]
    assert retry[1]["data"]["replayed"] is True
    assert generator.started == 1
    assert questions_in(world, first[-1]["data"]["conversation_id"]) == 1


def test_given_questions_exhausted_when_retrying_a_saved_answer_then_still_served(
    client: TestClient, world: World
) -> None:
    get_stores(world.settings).quotas.set_quota("alice", questions_left=1, credits_left=None)
    saved = post(client, world, ask("Who made us?", request_id="r-q")).json()

    refused = post(client, world, ask("What is prayer?"))
    retried = post(client, world, ask("Who made us?", request_id="r-q"))

    assert refused.status_code == 429
    assert refused.json()["error"]["code"] == "quota.questions_exhausted"
    assert retried.status_code == 200
    assert retried.json()["question_id"] == saved["question_id"]


def test_given_a_refused_question_with_a_scope_then_the_conversation_keeps_its_saved_scope(
    client: TestClient, world: World
) -> None:
    first = post(client, world, ask("Who made us?", scope={"tags": ["creed"]})).json()
    conv_id = first["conversation_id"]
    get_stores(world.settings).quotas.set_quota("alice", questions_left=0, credits_left=None)

    refused = post(
        client, world, ask("What is prayer?", conversation_id=conv_id, scope={"tags": ["other"]})
    )

    assert refused.status_code == 429
    conversation = get_stores(world.settings).conversations.get_conversation(conv_id)
    assert conversation is not None
    assert conversation.scope == {"tags": ["creed"]}


def test_given_credits_exhausted_when_asking_then_429_and_nothing_spent(
    client: TestClient, world: World
) -> None:
    quotas = get_stores(world.settings).quotas
    quotas.set_quota("alice", questions_left=None, credits_left=1)

    precise = post(client, world, ask("Who made us?", request_id="r-c"))
    fast = post(client, world, ask("Who made us?", quality="fast"))
    # The refused request released its request_id: it may be answered later.
    quotas.set_quota("alice", questions_left=None, credits_left=10)
    later = post(client, world, ask("Who made us?", request_id="r-c"))

    assert precise.status_code == 429
    assert precise.json()["error"]["code"] == "quota.credits_exhausted"
    assert fast.status_code == 200
    assert later.status_code == 200
    assert quotas.get_quota("alice").questions_used == 2


def test_given_a_request_id_reused_for_another_question_then_409(
    client: TestClient, world: World
) -> None:
    post(client, world, ask("Who made us?", request_id="r-x"))

    response = post(client, world, ask("What is prayer?", request_id="r-x"))

    assert response.status_code == 409
    assert response.json()["error"]["code"] == "requests.conflict"


@pytest.mark.parametrize(
    "changed",
    [
        {"collection": "reports"},
        {"quality": "fast"},
        {"export": "markdown"},
        {"scope": {"tags": ["t"]}},
        {"language": "de"},
        {"tags": ["t"]},
        {"bypass_cache": True},
        {
            "messages": [
                {"role": "user", "content": "Who is God?"},
                {"role": "assistant", "content": "God is the Supreme Being."},
                {"role": "user", "content": "Who made us?"},
            ]
        },
    ],
    ids=lambda changed: next(iter(changed)),
)
def test_given_a_request_id_reused_with_other_options_then_409_mismatch_not_a_replay(
    client: TestClient, world: World, changed: dict[str, Any]
) -> None:
    request_id = f"r-m-{next(iter(changed))}"
    first = post(client, world, ask("Who made us?", request_id=request_id))

    response = post(client, world, ask("Who made us?", request_id=request_id) | changed)
    streamed = post(client, world, ask("Who made us?", request_id=request_id, stream=True))

    assert first.status_code == 200, first.text
    assert response.status_code == 409, response.text
    error = response.json()["error"]
    assert (error["code"], error["param"]) == ("requests.mismatch", "request_id")
    # The same body, streamed this time: the saved answer, replayed.
    assert streamed.status_code == 200
    assert '"replayed":true' in streamed.text


def test_given_the_same_question_twice_when_asking_then_the_second_is_cached_and_costs_no_credit(
    client: TestClient, world: World, generator: SlowGenerator
) -> None:
    first = post(client, world, ask("What is prayer?")).json()

    second = post(client, world, ask("  what is PRAYER ")).json()
    stored = get_stores(world.settings).conversations.get_question(
        second["conversation_id"], second["question_id"]
    )

    assert first["cached"] is False
    assert second["cached"] is True
    assert second["text"] == first["text"]
    assert second["citations"] == first["citations"]
    assert second["question_id"] != first["question_id"]
    assert stored is not None
    assert stored.cached
    assert generator.started == 1
    assert get_stores(world.settings).quotas.get_quota("alice").credits_used == 2


@pytest.mark.parametrize(
    "change",
    [{"quality": "fast"}, {"language": "de"}, {"collection": "reports"}, {"tags": ["sacraments"]}],
)
def test_given_what_determines_the_answer_changes_then_the_cache_is_not_used(
    client: TestClient, world: World, change: dict[str, Any]
) -> None:
    post(client, world, ask("What is prayer?"))

    assert post(client, world, ask("What is prayer?") | change).json()["cached"] is False


def test_given_bypass_cache_when_asking_then_fresh_answer_replaces_the_entry(
    client: TestClient, world: World, generator: SlowGenerator
) -> None:
    post(client, world, ask("What is prayer?"))
    generator.prefix = "Fresh. "

    fresh = post(client, world, ask("What is prayer?", bypass_cache=True)).json()
    next_time = post(client, world, ask("What is prayer?")).json()

    assert fresh["cached"] is False
    assert fresh["text"].startswith("Fresh. ")
    assert next_time["cached"] is True
    assert next_time["text"] == fresh["text"]


def test_given_the_collection_changes_when_asking_again_then_generated_anew(
    client: TestClient, world: World, generator: SlowGenerator
) -> None:
    post(client, world, ask("What is prayer?"))
    card = Card(
        id="catechism-9", collection="catechism", source_id="extra", text="Prayer helps.", url="x:9"
    )
    get_retriever(world.settings).upsert([card])
    get_storage(world.settings).put_source(
        SourceRecord(
            id="extra", collection="catechism", title=None, location="x", content_hash="1", cards=1
        )
    )

    again = post(client, world, ask("What is prayer?")).json()

    assert again["cached"] is False
    assert generator.started == 2


def test_given_the_generator_fails_mid_stream_then_error_event_and_nothing_kept(
    client: TestClient, world: World, generator: SlowGenerator
) -> None:
    generator.fail_after = 3
    body = ask("What is prayer?", stream=True, request_id="r-f", conversation_id="c-f")

    events = sse_events(post(client, world, body).text)
    stores = get_stores(world.settings)

    assert [e["event"] for e in events[-1:]] == ["error"]
    assert events[-1]["data"]["error"]["code"] == "internal.error"
    assert questions_in(world, "c-f") == 0
    assert stores.idempotency.get("alice", "r-f") is None
    assert stores.quotas.get_quota("alice").credits_used == 0
    generator.fail_after = None
    assert post(client, world, body | {"stream": False}).status_code == 200
    assert questions_in(world, "c-f") == 1


def test_given_storage_fails_writing_the_turn_then_no_half_written_turn_and_retry_works(
    client: TestClient, world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    stores = get_stores(world.settings)
    real = stores.conversations.add_question
    failures = iter([StorageUnavailable("throttled")])

    def flaky(*args: Any, **kwargs: Any) -> Any:
        failure = next(failures, None)
        if failure is not None:
            raise failure
        return real(*args, **kwargs)

    monkeypatch.setattr(stores.conversations, "add_question", flaky)
    body = ask("What is prayer?", stream=True, request_id="r-s", conversation_id="c-s")

    failed = sse_events(post(client, world, body).text)
    state_after_failure = (
        questions_in(world, "c-s"),
        stores.idempotency.get("alice", "r-s"),
        stores.quotas.get_quota("alice").questions_used,
    )
    retried = sse_events(post(client, world, body).text)

    assert failed[-1]["event"] == "error"
    assert failed[-1]["data"]["error"]["code"] == "storage.unavailable"
    assert state_after_failure == (0, None, 0)
    assert retried[-1]["event"] == "done"
    assert questions_in(world, "c-s") == 1
    assert stores.quotas.get_quota("alice").questions_used == 1


def test_given_a_generation_longer_than_the_lease_then_a_duplicate_waits_and_gets_the_replay(
    world: World,
) -> None:
    settings = world.settings.model_copy(update={"chat_lease_seconds": 3})
    slow = SlowGenerator(delay=0.15)
    app = create_app(settings)
    answer_with(app, settings, slow)
    body = ask("How many sacraments are there?", request_id="r-long", conversation_id="c-long")
    results: list[Any] = []

    with TestClient(app) as client:

        def send() -> None:
            results.append(post(client, world, body).json())

        first = threading.Thread(target=send)
        first.start()
        while slow.started == 0:
            time.sleep(0.01)
        duplicate = threading.Thread(target=send)
        duplicate.start()
        first.join(30)
        duplicate.join(30)

    assert slow.started == 1
    assert slow.finished == 1
    assert len({r["question_id"] for r in results}) == 1
    assert sorted(r.get("replayed", False) for r in results) == [False, True]
    assert questions_in(world, "c-long") == 1


def test_given_storage_fails_before_answering_then_503_and_nothing_spent(
    client: TestClient, world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    stores = get_stores(world.settings)

    def down(*args: Any, **kwargs: Any) -> Any:
        raise StorageUnavailable("timed out")

    monkeypatch.setattr(stores.idempotency, "claim", down)
    response = post(client, world, ask("What is prayer?", request_id="r-d", conversation_id="c-d"))

    assert response.status_code == 503
    assert response.json()["error"]["code"] == "storage.unavailable"
    assert questions_in(world, "c-d") == 0
    assert stores.quotas.get_quota("alice").questions_used == 0
