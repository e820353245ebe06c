"""The local user: on a laptop, native chat and the page need no key from this computer,
and only from it (real HTTP to uvicorn on 127.0.0.1)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from groundwork.api.app import create_app
from groundwork.cli import serve
from groundwork.cli.main import main
from groundwork.domain.cards import Card
from groundwork.retrieval.factory import get_retriever
from groundwork.settings import Settings, get_settings
from groundwork.storage.factory import get_storage, get_stores
from tests.serving import served

CARD = Card(id="h-1", collection="handbook", source_id="s", text="Leave is 25 days.", url="h.md")


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    made = Settings(
        data_dir=tmp_path / "data",
        bootstrap_docs=False,
        retrieval="keyword",
        default_collection="handbook",
        local_user=True,
    )
    get_retriever(made).upsert([CARD])
    return made


@pytest.fixture
def url(settings: Settings) -> Iterator[str]:
    with served(create_app(settings)) as base:
        yield base


def test_given_the_local_user_when_this_computer_asks_without_a_key_then_it_is_answered(
    url: str,
) -> None:
    listed = httpx.get(f"{url}/v1/collections")
    answer = httpx.post(
        f"{url}/v1/chat",
        json={"messages": [{"role": "user", "content": "How long is leave?"}],
              "collection": "handbook"},
    )  # fmt: skip

    assert listed.status_code == 200
    assert [c["name"] for c in listed.json()["data"]] == ["handbook"]
    assert answer.status_code == 200
    assert "25 days" in answer.json()["text"]


@pytest.mark.parametrize(
    "headers",
    [
        {"Host": "evil.example"},  # a page of another site that resolves to 127.0.0.1
        {"X-Forwarded-For": "203.0.113.7"},  # relayed by a proxy
        {"Forwarded": "for=203.0.113.7"},
        {"Authorization": "Bearer gw_wrong"},  # a key that is not valid is not the local user
    ],
)
def test_given_a_request_not_from_this_computer_when_keyless_then_401(
    url: str, headers: dict[str, str]
) -> None:
    response = httpx.get(f"{url}/v1/collections", headers=headers)

    assert response.status_code == 401
    assert response.json()["error"]["code"] == "auth.invalid_key"


def test_given_keys_required_when_keyless_from_this_computer_then_401(
    settings: Settings,
) -> None:
    strict = settings.model_copy(update={"require_api_key": True})
    with served(create_app(strict)) as base:
        assert httpx.get(f"{base}/v1/collections").status_code == 401


@pytest.fixture
def same_data(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The command line on the served app's data directory."""
    monkeypatch.setenv("GROUNDWORK_DATA_DIR", str(settings.data_dir))
    monkeypatch.setenv("GROUNDWORK_RETRIEVAL", "keyword")
    cached = (get_settings, get_retriever, get_storage, get_stores)
    for factory in cached:
        factory.cache_clear()
    yield
    for factory in cached:
        factory.cache_clear()


@pytest.mark.usefixtures("same_data")
def test_given_the_local_user_when_a_collection_is_ingested_then_it_sees_it(
    url: str, tmp_path: Path
) -> None:
    doc = tmp_path / "recipes.md"
    doc.write_text("# Bread\n\nKnead the dough for ten minutes.\n")

    assert main(["ingest", str(doc), "--collection", "recipes"]) == 0

    listed = httpx.get(f"{url}/v1/collections").json()["data"]
    assert [c["name"] for c in listed] == ["handbook", "recipes"]


@pytest.mark.parametrize(("host", "local"), [("127.0.0.1", True), ("0.0.0.0", False)])
def test_given_a_bind_address_when_serving_then_the_local_user_is_on_only_for_loopback(
    host: str,
    local: bool,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("GROUNDWORK_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("GROUNDWORK_LOCAL_USER", raising=False)
    get_settings.cache_clear()
    try:
        chosen = serve._settings_for(host)
        serve._say_how_to_sign_in(chosen, host, 8000)
    finally:
        # Set by serve itself, not by monkeypatch, which would put it back after the test.
        os.environ.pop("GROUNDWORK_LOCAL_USER", None)
        get_settings.cache_clear()

    assert chosen.local_user is local
    said = capsys.readouterr().err
    assert ("needs no API key" in said) is local
    assert ("groundwork admin create-key me" in said) is not local
