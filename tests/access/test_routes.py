"""A user granted only the ``public`` part of the handbook never receives text, a citation, a
search hit, a starter, a source or a cached or replayed answer from its ``board`` document,
through any route, while a user granted the whole handbook does; on both stacks.

The handbook (``tests/access/handbook``): ``welcome.md`` tagged ``public``,
``deployments.md`` tagged ``engineering``, ``board-minutes.md`` tagged ``board``; ``wiki``
holds ``cooperatives.md``. Users: alice (the whole handbook, the wiki), bob and frank
(``--tags public``, the wiki), carol (``--sources`` the deployments), erin (the whole handbook,
narrowed while the tests run).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from groundwork.storage.factory import get_stores
from tests.access.conftest import HERE, Stack, app_client, documents
from tests.chat.fixtures import sse_events

BOARD_QUESTION = "When did the board approve the merger with Acme Corporation?"
#: Words only the board minutes hold (compared without case).
BOARD_WORDS = ("acme", "four million", "salary")


@pytest.fixture(scope="module")
def world(stack: Stack) -> Stack:
    stack.ingest(HERE / "handbook", "handbook")
    stack.ingest(HERE / "wiki", "wiki")
    accounts = get_stores(stack.settings).accounts
    accounts.create_collection("handbook", "Handbook")
    accounts.create_collection("wiki")
    deployments = stack.source_ids("handbook")["deployments.md"]
    stack.user("alice", handbook=None, wiki=None)
    stack.user("bob", handbook={"tags": ["public"]}, wiki=None)
    stack.user("frank", handbook={"tags": ["public"]}, wiki=None)
    stack.user("carol", handbook={"source_ids": [deployments]})
    stack.user("erin", handbook=None)
    return stack


@pytest.fixture(scope="module")
def client(world: Stack) -> Iterator[TestClient]:
    yield from app_client(world)


def chat(
    client: TestClient, world: Stack, user: str, question: str = BOARD_QUESTION, **extra: Any
) -> Any:
    body = {"messages": [{"role": "user", "content": question}], "collection": "handbook"}
    response = client.post("/v1/chat", json=body | extra, headers=world.headers(user))
    assert response.status_code == 200, response.text
    return response.json()


def leaks(text: str) -> list[str]:
    return [word for word in BOARD_WORDS if word in text.casefold()]


@pytest.mark.parametrize("quality", ["fast", "precise"])
def test_given_a_public_grant_when_searching_then_no_board_hit_while_the_whole_grant_has_them(
    client: TestClient, world: Stack, quality: str
) -> None:
    body = {"query": "board merger Acme salary", "collection": "handbook", "k": 10}

    def files(user: str, **extra: Any) -> set[str]:
        response = client.post(
            "/v1/search", json=body | {"quality": quality} | extra, headers=world.headers(user)
        )
        assert response.status_code == 200, response.text
        return documents(response.json()["results"])

    assert "board-minutes.md" in files("alice")
    assert files("bob") <= {"welcome.md"}
    assert files("bob", tags=["board"]) == set()
    assert files("bob", scope={"collections": ["handbook", "wiki"]}) <= {
        "welcome.md",
        "cooperatives.md",
    }
    assert files("carol") <= {"deployments.md"}


def test_given_a_public_grant_when_asking_natively_then_no_board_text_citation_or_export(
    client: TestClient, world: Stack
) -> None:
    whole = chat(client, world, "alice", export="markdown")
    public = chat(client, world, "bob", export="markdown")
    streamed = sse_events(
        client.post(
            "/v1/chat",
            json={"messages": [{"role": "user", "content": BOARD_QUESTION}],
                  "scope": {"collections": ["handbook", "wiki"]}, "stream": True},
            headers=world.headers("bob"),
        ).text
    )  # fmt: skip

    assert "board-minutes.md" in documents(whole["citations"])
    assert leaks(whole["text"])
    assert documents(public["citations"]) <= {"welcome.md"}
    assert leaks(public["text"] + public["export"]["content"]) == []
    done = streamed[-1]["data"]
    tokens = "".join(e["data"]["text"] for e in streamed if e["event"] == "token")
    assert streamed[-1]["event"] == "done"
    assert documents(done["citations"]) <= {"welcome.md", "cooperatives.md"}
    assert leaks(tokens + done["text"]) == []


@pytest.mark.parametrize("stream", [False, True])
def test_given_a_public_grant_when_asking_chat_completions_then_no_board_text_or_citation(
    client: TestClient, world: Stack, stream: bool
) -> None:
    def complete(user: str) -> tuple[str, list[dict[str, Any]]]:
        body = {
            "model": "groundwork-1",
            "messages": [{"role": "user", "content": BOARD_QUESTION}],
            "collection": "handbook",
            "stream": stream,
        }
        response = client.post("/v1/chat/completions", json=body, headers=world.headers(user))
        assert response.status_code == 200, response.text
        if not stream:
            answer = response.json()
            return answer["choices"][0]["message"]["content"], answer["citations"]
        chunks = [
            json.loads(line[6:])
            for line in response.text.splitlines()
            if line.startswith("data: {")
        ]
        text = "".join(c["choices"][0]["delta"].get("content", "") for c in chunks if c["choices"])
        return text, next(c["citations"] for c in chunks if "citations" in c)

    whole_text, whole_citations = complete("alice")
    public_text, public_citations = complete("bob")

    assert "board-minutes.md" in documents(whole_citations)
    assert leaks(whole_text)
    assert documents(public_citations) <= {"welcome.md"}
    assert leaks(public_text) == []


def test_given_users_who_see_different_cards_when_asking_the_same_then_no_cache_is_shared(
    client: TestClient, world: Stack
) -> None:
    question = "On which day did the board approve the merger with Acme Corporation?"
    scope = {"collections": ["handbook", "wiki"]}
    whole = chat(client, world, "alice", question, scope=scope)
    whole_again = chat(client, world, "alice", question, scope=scope)
    public = chat(client, world, "bob", question, scope=scope)
    same_grant = chat(client, world, "frank", question, scope=scope)

    assert (whole["cached"], whole_again["cached"]) == (False, True)
    assert leaks(whole["text"])
    assert public["cached"] is False
    assert leaks(public["text"]) == []
    assert "board-minutes.md" not in documents(public["citations"])
    # The same grant sees the same cards: the cache serves it.
    assert same_grant["cached"] is True
    assert same_grant["text"] == public["text"]


def test_given_a_grant_narrowed_after_an_answer_then_no_replay_feed_or_history_carries_it(
    client: TestClient, world: Stack
) -> None:
    accounts = get_stores(world.settings).accounts
    body = {
        "messages": [{"role": "user", "content": BOARD_QUESTION}],
        "collection": "handbook",
        "conversation_id": f"c-erin-{world.name.replace('+', '-')}",
        "request_id": "r-erin",
    }
    headers = world.headers("erin")
    first = client.post("/v1/chat", json=body, headers=headers).json()
    assert "board-minutes.md" in documents(first["citations"])

    accounts.grant("erin", "handbook", tags=["public"])
    try:
        retry = client.post("/v1/chat", json=body, headers=headers)
        feed = client.get(f"/v1/conversations/{body['conversation_id']}/feed", headers=headers)
        version = client.post(
            "/v1/chat",
            json={**body, "request_id": None, "version_of": first["question_id"],
                  "messages": [{"role": "user", "content": "When does the office open?"}]},
            headers=headers,
        )  # fmt: skip
        selected_old = client.post(
            f"/v1/conversations/{body['conversation_id']}/versions",
            json={"question_id": first["question_id"]},
            headers=headers,
        )
    finally:
        accounts.grant("erin", "handbook")
    widened = client.get(f"/v1/conversations/{body['conversation_id']}/feed", headers=headers)

    assert retry.status_code == 409
    assert retry.json()["error"]["code"] == "requests.mismatch"
    assert leaks(retry.text) == []
    (item,) = feed.json()["items"]
    assert (item["withheld"], item["answer"], item["citations"]) == (True, "", [])
    assert item["question"] == BOARD_QUESTION  # the user's own words stay
    assert version.status_code == 200, version.text
    assert leaks(version.text) == []
    (old,) = selected_old.json()["items"]
    assert (old["withheld"], old["answer"], old["citations"]) == (True, "", [])
    # Granted the whole handbook again, the old answer is theirs to read again.
    assert widened.json()["items"][0]["withheld"] is False
    assert leaks(widened.json()["items"][0]["answer"])


def test_given_a_public_grant_when_listing_starters_then_none_is_drawn_from_the_board(
    client: TestClient, world: Stack
) -> None:
    sources = world.source_ids("handbook")

    def starters(user: str) -> list[dict[str, Any]]:
        response = client.get(
            "/v1/starters", params={"collection": "handbook", "limit": 100},
            headers=world.headers(user),
        )  # fmt: skip
        assert response.status_code == 200, response.text
        data: list[dict[str, Any]] = response.json()["data"]
        return data

    def drawn_from(user: str) -> set[str | None]:
        return {s["source_id"] for s in starters(user)}

    assert sources["board-minutes.md"] in drawn_from("alice")
    assert drawn_from("bob") == {sources["welcome.md"]}
    assert drawn_from("carol") == {sources["deployments.md"]}
    assert [leaks(s["text"]) for s in starters("bob")] == [[]] * len(starters("bob"))


def test_given_a_hidden_source_when_scoped_then_404_exactly_like_a_missing_one(
    client: TestClient, world: Stack
) -> None:
    sources = world.source_ids("handbook")

    def refused(user: str, source_id: str, route: str) -> dict[str, Any]:
        body: dict[str, Any] = {"scope": {"source_id": source_id}, "collection": "handbook"}
        if route == "/v1/chat":
            body["messages"] = [{"role": "user", "content": BOARD_QUESTION}]
        response = client.post(route, json=body, headers=world.headers(user))
        assert response.status_code == 404, response.text
        error: dict[str, Any] = response.json()["error"]
        return error | {"message": error["message"].replace(source_id, "ID")}

    for route in ("/v1/chat", "/v1/scope/resolve"):
        missing = refused("bob", "no-such-source", route)
        assert missing["code"] == "sources.not_found"
        assert refused("bob", sources["board-minutes.md"], route) == missing
        assert refused("carol", sources["welcome.md"], route) == missing
    resolved = client.post(
        "/v1/scope/resolve",
        json={"scope": {"source_id": sources["deployments.md"]}},
        headers=world.headers("carol"),
    )
    assert resolved.json()["source_ids"] == [sources["deployments.md"]]


def test_given_a_public_grant_when_listing_collections_then_only_visible_sources_and_counts(
    client: TestClient, world: Stack
) -> None:
    def listed(user: str) -> dict[str, dict[str, int]]:
        response = client.get("/v1/collections", headers=world.headers(user))
        assert response.status_code == 200, response.text
        return {
            c["name"]: {s["location"]: s["cards"] for s in c["sources"]}
            for c in response.json()["data"]
        }

    everything = listed("alice")
    assert set(everything["handbook"]) == {"board-minutes.md", "deployments.md", "welcome.md"}
    assert listed("bob") == {
        "handbook": {"welcome.md": everything["handbook"]["welcome.md"]},
        "wiki": everything["wiki"],
    }
    assert listed("carol") == {
        "handbook": {"deployments.md": everything["handbook"]["deployments.md"]}
    }


def test_given_a_public_grant_when_asking_for_board_cards_by_id_then_none_is_used(
    client: TestClient, world: Stack
) -> None:
    board = world.source_ids("handbook")["board-minutes.md"]

    answer = chat(client, world, "bob", card_ids=[f"{board}-00000", f"{board}-00001"])

    assert answer["citations"] == []
    assert leaks(answer["text"]) == []
