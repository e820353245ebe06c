"""``groundwork admin``: from nothing to a key that opens /v1/chat on a granted collection."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from groundwork.api.app import create_app
from groundwork.cli.main import main
from groundwork.retrieval.factory import get_retriever
from groundwork.settings import get_settings
from groundwork.storage.factory import get_stores
from tests.chat.fixtures import ask, bearer, cards


@pytest.fixture(autouse=True)
def isolated_data(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    monkeypatch.setenv("GROUNDWORK_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("GROUNDWORK_BOOTSTRAP_DOCS", "false")
    monkeypatch.setenv("GROUNDWORK_RETRIEVAL", "keyword")
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()


def admin(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["admin", *args])
    out, err = capsys.readouterr()
    return code, out.strip(), err.strip()


def test_given_admin_commands_when_run_then_the_printed_key_answers_on_the_granted_collection(
    capsys: pytest.CaptureFixture[str],
) -> None:
    get_retriever(get_settings()).upsert(cards())
    assert admin(capsys, "create-user", "carol", "--name", "Carol")[0] == 0
    assert admin(capsys, "create-collection", "catechism")[0] == 0
    assert admin(capsys, "grant", "carol", "catechism")[0] == 0
    code, key, _ = admin(capsys, "create-key", "carol", "--label", "laptop")
    quota = admin(capsys, "set-quota", "carol", "--questions", "5")

    with TestClient(create_app(get_settings())) as client:
        response = client.post("/v1/chat", json=ask("Who made us?"), headers=bearer(key))

    assert code == 0
    assert key.startswith("gw_")
    assert quota == (0, "carol: 5 questions, unlimited credits left", "")
    assert response.status_code == 200
    assert get_stores(get_settings()).quotas.get_quota("carol").questions_left == 4


def test_given_bad_admin_input_when_run_then_one_line_and_exit_1(
    capsys: pytest.CaptureFixture[str],
) -> None:
    admin(capsys, "create-user", "dave")

    again = admin(capsys, "create-user", "dave")
    nobody = admin(capsys, "create-key", "nobody")
    no_collection = admin(capsys, "grant", "dave", "nowhere")
    no_user = admin(capsys, "set-quota", "nobody", "--credits", "3")

    assert again[0] == 1
    assert "already exists" in again[2]
    assert [nobody[0], no_collection[0], no_user[0]] == [1, 1, 1]
    assert all("not found" in result[2] for result in (nobody, no_collection, no_user))


def test_given_an_ingested_collection_when_granted_without_registering_then_the_key_answers(
    capsys: pytest.CaptureFixture[str],
) -> None:
    get_retriever(get_settings()).upsert(cards())
    admin(capsys, "create-user", "erin")

    granted = admin(capsys, "grant", "erin", "catechism")
    _, key, _ = admin(capsys, "create-key", "erin")

    with TestClient(create_app(get_settings())) as client:
        response = client.post("/v1/chat", json=ask("Who made us?"), headers=bearer(key))
    assert granted == (0, "erin may see catechism", "")
    assert response.status_code == 200


def test_given_a_grant_that_cannot_be_made_then_the_message_names_what_is_missing(
    capsys: pytest.CaptureFixture[str],
) -> None:
    get_retriever(get_settings()).upsert(cards())
    admin(capsys, "create-user", "frank")

    no_user = admin(capsys, "grant", "nobody", "catechism")
    no_collection = admin(capsys, "grant", "frank", "nowhere")

    assert no_user[0] == no_collection[0] == 1
    assert "user nobody" in no_user[2]
    assert "collection nowhere" in no_collection[2]
    assert "nothing is ingested" in no_collection[2]
