"""Scope resolution: the function behind every question, its endpoint, and the saved scope."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from tests.chat.fixtures import World, ask, bearer


def resolve(client: TestClient, world: World, user: str = "alice", **body: Any) -> Any:
    return client.post("/v1/scope/resolve", json=body, headers=bearer(world.keys[user]))


def test_given_scope_collections_when_resolving_then_they_replace_collection(
    client: TestClient, world: World
) -> None:
    resolved = resolve(
        client, world, collection="catechism", scope={"collections": ["reports"]}
    ).json()

    assert resolved["collections"] == ["reports"]


def test_given_a_source_when_resolving_then_its_collection_and_cards_only(
    client: TestClient, world: World
) -> None:
    resolved = resolve(
        client, world, collection="catechism", scope={"source_id": "report-2023"}
    ).json()

    assert resolved["collections"] == ["reports"]
    assert resolved["source_ids"] == ["report-2023"]


def test_given_tags_and_scope_tags_when_resolving_then_they_add_up(
    client: TestClient, world: World
) -> None:
    resolved = resolve(
        client,
        world,
        collection="catechism",
        tags=["sacraments"],
        scope={"tags": ["finance", "sacraments"]},
    ).json()

    assert resolved["tags"] == ["sacraments", "finance"]


def test_given_no_key_or_a_hidden_collection_when_resolving_then_refused(
    client: TestClient, world: World
) -> None:
    assert client.post("/v1/scope/resolve", json={}).status_code == 401
    hidden = resolve(client, world, "bob", scope={"collections": ["reports"]})
    assert hidden.status_code == 403
    assert hidden.json()["error"]["code"] == "collections.no_access"


def test_given_a_period_when_chatting_then_only_documents_of_that_period_are_cited(
    client: TestClient, world: World
) -> None:
    body = ask(
        "What was the revenue of the cooperative?",
        collection="reports",
        scope={"period": {"start": "2023", "end": "2023"}},
    )

    done = client.post("/v1/chat", json=body, headers=bearer(world.keys["alice"])).json()

    assert done["citations"]
    assert {c["source_url"] for c in done["citations"]} == {"https://example.org/reports/2023"}


def test_given_a_scope_with_conversation_when_asking_again_then_saved_applied_and_reset(
    client: TestClient, world: World
) -> None:
    headers = bearer(world.keys["alice"])
    scope = {"source_id": "report-2024"}
    first = client.post(
        "/v1/chat",
        json=ask("What was the revenue?", conversation_id="c-scope", scope=scope),
        headers=headers,
    ).json()
    saved = client.get("/v1/conversations/c-scope", headers=headers).json()["scope"]
    # No scope field: the saved one applies.
    second = client.post(
        "/v1/chat",
        json=ask("What was the revenue of the cooperative?", conversation_id="c-scope"),
        headers=headers,
    ).json()
    preview = resolve(client, world, conversation_id="c-scope").json()
    # null resets it: the request's own collection applies again.
    client.post(
        "/v1/chat", json=ask("Who made us?", conversation_id="c-scope", scope=None), headers=headers
    )
    after_null = client.get("/v1/conversations/c-scope", headers=headers).json()["scope"]

    assert saved == scope
    assert {c["source_url"] for c in first["citations"]} == {"https://example.org/reports/2024"}
    assert {c["source_url"] for c in second["citations"]} == {"https://example.org/reports/2024"}
    assert preview["source_ids"] == ["report-2024"]
    assert after_null is None


def test_given_an_empty_scope_when_asking_then_the_saved_scope_is_reset(
    client: TestClient, world: World
) -> None:
    headers = bearer(world.keys["alice"])
    client.post(
        "/v1/chat",
        json=ask("Revenue?", conversation_id="c-empty", scope={"collections": ["reports"]}),
        headers=headers,
    )

    client.post(
        "/v1/chat", json=ask("Who made us?", conversation_id="c-empty", scope={}), headers=headers
    )

    assert client.get("/v1/conversations/c-empty", headers=headers).json()["scope"] is None
