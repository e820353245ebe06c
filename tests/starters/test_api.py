"""``GET /v1/starters`` and ``groundwork admin …-starter``: an admin's first, proposals fill up
to the limit, only collections the key's user may see."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from groundwork.api.app import create_app
from groundwork.cli.main import main
from groundwork.settings import get_settings
from groundwork.storage.factory import get_storage, get_stores
from groundwork.storage.starters import StarterRecord
from tests.starters.conftest import GERMAN, Service, service_on


@pytest.fixture
def seeded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[Service, TestClient, str]]:
    """``backen`` ingested with proposals, ``catechism`` with an admin's starters, ``secret``
    not granted; the settings come from the environment, as ``groundwork admin`` reads them."""
    monkeypatch.setenv("GROUNDWORK_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("GROUNDWORK_BOOTSTRAP_DOCS", "false")
    monkeypatch.setenv("GROUNDWORK_RETRIEVAL", "keyword")
    # ``groundwork admin`` calls the factories without arguments: cached across tests.
    for cached in (get_settings, get_stores, get_storage):
        cached.cache_clear()
    service = service_on(get_settings())
    shutil.copy(GERMAN, tmp_path / "brot.md")
    service.ingestor.ingest([tmp_path / "brot.md"], collection="backen", root=tmp_path)
    accounts = service.stores.accounts
    accounts.create_user("alice", "Alice")
    for name in ("backen", "catechism", "secret"):
        accounts.create_collection(name)
    accounts.grant("alice", "backen")
    accounts.grant("alice", "catechism")
    service.stores.starters.add(
        StarterRecord(id="st_secret", collection="secret", text="Secret?", language="en")
    )
    key = accounts.issue_api_key("alice")
    with TestClient(create_app(get_settings())) as client:
        yield service, client, key
    for cached in (get_settings, get_stores, get_storage):
        cached.cache_clear()


def listed(client: TestClient, key: str, **params: Any) -> Any:
    response = client.get("/v1/starters", params=params, headers={"Authorization": f"Bearer {key}"})
    assert response.status_code == 200, response.text
    return response.json()["data"]


def admin(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["admin", *args])
    out, err = capsys.readouterr()
    return code, out.strip(), err.strip()


def test_given_admin_starters_and_proposals_when_listed_then_admins_first_and_limit_holds(
    seeded: tuple[Service, TestClient, str], capsys: pytest.CaptureFixture[str]
) -> None:
    service, client, key = seeded
    (source,) = service.ingestor._storage.list_sources("backen")
    code, first, _ = admin(capsys, "add-starter", "backen", "Wie lange backt ein Laib Brot?")
    assert code == 0
    admin(capsys, "add-starter", "catechism", "Who made us?", "--language", "EN")
    admin(
        capsys, "add-starter", "backen", "Welches Mehl?", "--language", "de", "--source", source.id
    )

    everything = listed(client, key)
    backen = listed(client, key, collection="backen", limit=3)

    assert [s["text"] for s in everything] == [
        "Wie lange backt ein Laib Brot?",
        "Welches Mehl?",
        "Who made us?",
        "Wie wird der Sauerteig angesetzt?",
        "Welches Mehl eignet sich für Roggenbrot?",
        "Wie wird der Holzofen angeheizt?",
    ]
    assert everything[0] == {
        "id": first,
        "text": "Wie lange backt ein Laib Brot?",
        "language": "de",
        "collection": "backen",
        "source_id": None,
    }
    assert everything[1]["source_id"] == source.id
    assert everything[2]["language"] == "en"
    assert everything[3]["source_id"] == source.id
    assert [s["text"] for s in backen] == [
        "Wie lange backt ein Laib Brot?",
        "Welches Mehl?",
        "Wie wird der Sauerteig angesetzt?",
    ]
    assert [s["text"] for s in listed(client, key, language="en")] == ["Who made us?"]


def test_given_starters_when_listed_and_removed_by_the_cli_then_they_are_gone(
    seeded: tuple[Service, TestClient, str], capsys: pytest.CaptureFixture[str]
) -> None:
    _, client, key = seeded
    _, starter_id, _ = admin(capsys, "add-starter", "catechism", "Who made us?")

    code, lines, _ = admin(capsys, "list-starters", "catechism")
    assert (code, lines) == (0, f"{starter_id}\tadmin\ten\t-\tWho made us?")
    assert admin(capsys, "remove-starter", "catechism", starter_id) == (
        0,
        f"starter {starter_id} removed",
        "",
    )
    assert listed(client, key, collection="catechism") == []
    assert admin(capsys, "remove-starter", "catechism", starter_id)[0] == 1
    assert admin(capsys, "add-starter", "nowhere", "Who?")[2] == (
        "groundwork admin: not found: collection nowhere"
    )
    assert admin(capsys, "add-starter", "catechism", "Who?", "--source", "nope")[0] == 1


def test_given_a_key_when_asking_for_collections_it_may_not_see_then_403_or_404(
    seeded: tuple[Service, TestClient, str],
) -> None:
    _, client, key = seeded
    auth = {"Authorization": f"Bearer {key}"}

    hidden = client.get("/v1/starters", params={"collection": "secret"}, headers=auth)
    missing = client.get("/v1/starters", params={"collection": "nowhere"}, headers=auth)
    bad_language = client.get("/v1/starters", params={"language": "deu"}, headers=auth)
    no_key = client.get("/v1/starters")

    assert (hidden.status_code, hidden.json()["error"]["code"]) == (403, "collections.no_access")
    assert (missing.status_code, missing.json()["error"]["code"]) == (404, "collections.not_found")
    assert (bad_language.status_code, bad_language.json()["error"]["code"]) == (
        400,
        "language.invalid",
    )
    assert (no_key.status_code, no_key.json()["error"]["code"]) == (401, "auth.invalid_key")
    assert "Secret?" not in [s["text"] for s in listed(client, key)]


def test_given_a_german_starter_when_asked_with_the_openai_sdk_then_the_answer_is_cited(
    seeded: tuple[Service, TestClient, str],
) -> None:
    """The flow of docs/starters.md: list, then ask the first with its collection and language."""
    from openai import OpenAI

    _, client, key = seeded
    (starter, *_) = listed(client, key, collection="backen")
    sdk = OpenAI(base_url="http://testserver/v1", api_key=key, http_client=client)

    answer = sdk.chat.completions.create(
        model="groundwork-1",
        messages=[{"role": "user", "content": starter["text"]}],
        extra_body={"collection": starter["collection"], "language": starter["language"]},
    )

    assert "Sauerteig" in (answer.choices[0].message.content or "")
    assert answer.model_extra is not None
    assert {c["document_title"] for c in answer.model_extra["citations"]} == {"Brot backen"}
