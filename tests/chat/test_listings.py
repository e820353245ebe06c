"""``GET /v1/collections`` and ``GET /v1/conversations``: what a key's user may list."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.chat.fixtures import World, ask, bearer


def get(client: TestClient, world: World, path: str, user: str = "alice", **params: Any) -> Any:
    return client.get(path, params=params, headers=bearer(world.keys[user]))


def test_given_a_key_when_listing_collections_then_its_visible_ones_with_their_sources(
    client: TestClient, world: World
) -> None:
    response = get(client, world, "/v1/collections")

    assert response.status_code == 200
    body = response.json()
    assert body["object"] == "list"
    assert [c["name"] for c in body["data"]] == ["catechism", "reports"]
    catechism, reports = body["data"]
    assert catechism["sources"] == [
        {
            "id": "baltimore",
            "title": "Baltimore Catechism",
            "location": "https://example.org/catechism#1",
            "cards": 4,
        }
    ]
    assert [s["title"] for s in reports["sources"]] == [
        "Annual report 2022",
        "Annual report 2023",
        "Annual report 2024",
    ]
    bob = get(client, world, "/v1/collections", user="bob").json()
    assert [c["name"] for c in bob["data"]] == ["catechism"]


def test_given_no_key_when_listing_then_401_invalid_key(client: TestClient) -> None:
    for path in ("/v1/collections", "/v1/conversations"):
        response = client.get(path)

        assert response.status_code == 401, path
        assert response.json()["error"]["code"] == "auth.invalid_key"


def test_given_conversations_when_listed_then_the_users_own_come_newest_first_with_titles(
    client: TestClient, world: World
) -> None:
    for conv_id, question in (("a1", "Who made us?"), ("a2", "What is prayer?")):
        client.post(
            "/v1/chat",
            json=ask(question, conversation_id=conv_id),
            headers=bearer(world.keys["alice"]),
        )
    client.post(
        "/v1/chat",
        json=ask("What is Baptism?", conversation_id="a1"),
        headers=bearer(world.keys["alice"]),
    )
    client.post(
        "/v1/chat",
        json=ask("What is Baptism?", conversation_id="b1"),
        headers=bearer(world.keys["bob"]),
    )

    data = get(client, world, "/v1/conversations").json()["data"]

    assert {c["id"]: (c["title"], c["questions"]) for c in data} == {
        "a1": ("Who made us?", 2),
        "a2": ("What is prayer?", 1),
    }
    assert data == sorted(data, key=lambda c: (c["updated"], c["id"]), reverse=True)
    assert set(data[0]) == {"id", "title", "created", "updated", "questions"}
    bob = get(client, world, "/v1/conversations", user="bob").json()
    assert [c["id"] for c in bob["data"]] == ["b1"]
    assert bob["next_cursor"] is None


def test_given_more_conversations_than_the_limit_when_paged_then_each_comes_once(
    client: TestClient, world: World
) -> None:
    for n in range(5):
        client.post(
            "/v1/chat",
            json=ask("Who made us?", conversation_id=f"p{n}"),
            headers=bearer(world.keys["alice"]),
        )

    seen: list[str] = []
    cursor = None
    pages = 0
    while True:
        params = {"limit": 2} | ({"cursor": cursor} if cursor else {})
        body = get(client, world, "/v1/conversations", **params).json()
        seen += [c["id"] for c in body["data"]]
        pages += 1
        cursor = body["next_cursor"]
        if cursor is None:
            break

    assert pages == 3
    assert sorted(seen) == [f"p{n}" for n in range(5)]


@pytest.mark.parametrize(
    ("params", "code", "param"),
    [
        ({"cursor": "not-a-cursor"}, "cursor.invalid", "query.cursor"),
        ({"limit": 0}, "request.invalid", "query.limit"),
        ({"limit": 101}, "request.invalid", "query.limit"),
        ({"limit": "many"}, "request.invalid", "query.limit"),
    ],
)
def test_given_a_bad_limit_or_cursor_when_listing_conversations_then_400(
    client: TestClient, world: World, params: dict[str, Any], code: str, param: str
) -> None:
    response = get(client, world, "/v1/conversations", **params)

    assert response.status_code == 400
    assert response.json()["error"]["code"] == code
    assert response.json()["error"]["param"] == param
