"""API keys, users and the collections and sources they may see."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from groundwork.api.app import create_app
from groundwork.storage.factory import get_stores
from groundwork.storage.records import hash_api_key
from tests.chat.fixtures import SlowGenerator, World, answer_with, ask, bearer


def test_given_no_key_when_chatting_then_401_invalid_key_in_openai_shape(
    client: TestClient,
) -> None:
    response = client.post("/v1/chat", json=ask("Who made us?"))

    assert response.status_code == 401
    assert response.json()["error"]["code"] == "auth.invalid_key"
    assert response.json()["error"]["type"] == "authentication_error"


def test_given_an_unknown_or_revoked_key_when_chatting_then_401(
    client: TestClient, world: World
) -> None:
    assert client.post("/v1/chat", json=ask("Q?"), headers=bearer("gw_nope")).status_code == 401
    get_stores(world.settings).accounts.revoke_api_key(hash_api_key(world.keys["bob"]))

    response = client.post("/v1/chat", json=ask("Who made us?"), headers=bearer(world.keys["bob"]))

    assert response.status_code == 401


def test_given_the_key_in_x_api_key_when_chatting_then_it_is_accepted(
    client: TestClient, world: World
) -> None:
    response = client.post(
        "/v1/chat", json=ask("Who made us?"), headers={"x-api-key": world.keys["bob"]}
    )

    assert response.status_code == 200
    assert "God made us" in response.json()["text"]


def test_given_defaults_when_calling_completions_without_key_then_open_unless_required(
    world: World,
) -> None:
    body = {"model": "m", "messages": [{"role": "user", "content": "Who made us?"}]}
    with TestClient(create_app(world.settings)) as open_client:
        assert (
            open_client.post(
                "/v1/chat/completions", json=body | {"collection": "catechism"}
            ).status_code
            == 200
        )
    strict = world.settings.model_copy(update={"require_api_key": True})
    with TestClient(create_app(strict)) as strict_client:
        refused = strict_client.post("/v1/chat/completions", json=body)
        allowed = strict_client.post(
            "/v1/chat/completions",
            json=body | {"collection": "catechism"},
            headers=bearer(world.keys["bob"]),
        )
        health = strict_client.get("/health")

    assert refused.status_code == 401
    assert refused.json()["error"]["code"] == "auth.invalid_key"
    assert allowed.status_code == 200
    assert health.status_code == 200


def test_given_a_collection_not_granted_when_chatting_then_403_no_access(
    client: TestClient, world: World
) -> None:
    response = client.post(
        "/v1/chat",
        json=ask("What is the vault code?", collection="secret"),
        headers=bearer(world.keys["alice"]),
    )

    assert response.status_code == 403
    assert response.json()["error"]["code"] == "collections.no_access"
    assert response.json()["error"]["param"] == "collection"


def test_given_a_missing_collection_when_chatting_then_404_not_found(
    client: TestClient, world: World
) -> None:
    response = client.post(
        "/v1/chat", json=ask("Q?", collection="nowhere"), headers=bearer(world.keys["alice"])
    )

    assert response.status_code == 404
    assert response.json()["error"]["code"] == "collections.not_found"


def test_given_a_scope_collection_of_another_user_when_chatting_then_403(
    client: TestClient, world: World
) -> None:
    response = client.post(
        "/v1/chat",
        json=ask("Revenue in 2023?", scope={"collections": ["catechism", "reports"]}),
        headers=bearer(world.keys["bob"]),
    )

    assert response.status_code == 403
    assert response.json()["error"]["param"] == "scope.collections"


def test_given_a_source_invisible_or_missing_when_chatting_then_404_sources_not_found(
    client: TestClient, world: World
) -> None:
    for source_id in ("vault", "report-2023", "no-such-source"):
        response = client.post(
            "/v1/chat",
            json=ask("What is it?", scope={"source_id": source_id}),
            headers=bearer(world.keys["bob"]),
        )

        assert response.status_code == 404, source_id
        assert response.json()["error"]["code"] == "sources.not_found"


# Every route that reads passages, with a body that asks about a question.
_PASSAGE_ROUTES = {
    "/v1/search": {"query": "vault code"},
    "/v1/chat/completions": {
        "model": "m",
        "messages": [{"role": "user", "content": "What is the vault code?"}],
    },
    "/v1/chat": {"messages": [{"role": "user", "content": "What is the vault code?"}]},
}


def _asking(route: str, collection: str, by_scope: bool) -> dict[str, Any]:
    where = {"scope": {"collections": [collection]}} if by_scope else {"collection": collection}
    return _PASSAGE_ROUTES[route] | where


@pytest.mark.parametrize("by_scope", [False, True], ids=["collection", "scope"])
@pytest.mark.parametrize("route", sorted(_PASSAGE_ROUTES))
def test_given_keys_required_when_a_route_reads_an_ungranted_collection_then_403_no_access(
    world: World, generator: SlowGenerator, route: str, by_scope: bool
) -> None:
    """Given a key whose user has no grant on ``secret``, when any passage route is asked
    about it, then 403 and no passage; the granted collection still answers."""
    strict = world.settings.model_copy(update={"require_api_key": True})
    app = create_app(strict)
    answer_with(app, strict, generator)
    with TestClient(app) as strict_client:
        refused = strict_client.post(
            route, json=_asking(route, "secret", by_scope), headers=bearer(world.keys["alice"])
        )
        allowed = strict_client.post(
            route, json=_asking(route, "catechism", by_scope), headers=bearer(world.keys["alice"])
        )

    assert refused.status_code == 403, refused.text
    assert refused.json()["error"]["code"] == "collections.no_access"
    assert "treasurer" not in refused.text
    assert allowed.status_code == 200, allowed.text
