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
from groundwork.storage.records import hash_api_key
from tests.chat.fixtures import ask, bearer, cards


@pytest.fixture(autouse=True)
def isolated_data(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    monkeypatch.setenv("GROUNDWORK_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("GROUNDWORK_BOOTSTRAP_DOCS", "false")
    monkeypatch.setenv("GROUNDWORK_RETRIEVAL", "keyword")
    # The CLI asks get_stores() with no argument: its cache would keep another test's data.
    get_settings.cache_clear()
    get_stores.cache_clear()
    yield
    get_settings.cache_clear()
    get_stores.cache_clear()


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


def test_given_a_revoked_key_when_used_then_401_and_revoking_again_is_not_found(
    capsys: pytest.CaptureFixture[str],
) -> None:
    get_retriever(get_settings()).upsert(cards())
    admin(capsys, "create-user", "erin")
    admin(capsys, "create-collection", "catechism")
    admin(capsys, "grant", "erin", "catechism")
    key = admin(capsys, "create-key", "erin")[1]
    other = admin(capsys, "create-key", "erin")[1]

    with TestClient(create_app(get_settings())) as client:
        before = client.post("/v1/chat", json=ask("Who made us?"), headers=bearer(key))
        revoked = admin(capsys, "revoke-key", key)
        after = client.post("/v1/chat", json=ask("Who made us?"), headers=bearer(key))
        by_digest = admin(capsys, "revoke-key", hash_api_key(other))
        other_after = client.post("/v1/chat", json=ask("Who made us?"), headers=bearer(other))
    again = admin(capsys, "revoke-key", key)

    assert before.status_code == 200
    assert revoked == (0, "key revoked", "")
    assert after.status_code == 401
    assert by_digest[0] == 0
    assert other_after.status_code == 401
    assert again[0] == 1
    assert "not found" in again[2]


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


def test_given_grants_with_tags_and_sources_when_listed_and_revoked_then_each_applies(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from groundwork.storage.base import SourceRecord
    from groundwork.storage.factory import get_storage

    get_retriever(get_settings()).upsert(cards())
    for year in ("2023", "2024"):
        get_storage(get_settings()).put_source(
            SourceRecord(id=f"report-{year}", collection="reports", title=None,
                         location=f"{year}.md", content_hash=year, cards=1)
        )  # fmt: skip
    admin(capsys, "create-user", "dora")

    tags = admin(capsys, "grant", "dora", "catechism", "--tags", "sacraments")
    sources = admin(capsys, "grant", "dora", "reports", "--sources", "report-2023", "report-2024")
    listed = admin(capsys, "grants", "dora")
    _, key, _ = admin(capsys, "create-key", "dora")
    with TestClient(create_app(get_settings())) as client:
        tagged = client.post("/v1/chat", json=ask("How many sacraments are there?"),
                             headers=bearer(key)).json()  # fmt: skip
        untagged = client.post("/v1/chat", json=ask("Who made us?"), headers=bearer(key)).json()
    revoked = admin(capsys, "revoke", "dora", "reports")
    again = admin(capsys, "revoke", "dora", "reports")
    after = admin(capsys, "grants", "dora")

    assert tags == (0, "dora may see catechism (tags sacraments)", "")
    assert sources == (0, "dora may see reports (sources report-2023, report-2024)", "")
    assert listed == (
        0, "catechism (tags sacraments)\nreports (sources report-2023, report-2024)", ""
    )  # fmt: skip
    assert [c["cited_text"][:9] for c in tagged["citations"]] == ["There are"]
    assert untagged["citations"] == []  # "God made us." has no tag of the grant
    assert revoked == (0, "dora may no longer see reports", "")
    assert again[0] == 1
    assert "not found: grant of reports to dora" in again[2]
    assert after == (0, "catechism (tags sacraments)", "")


def test_given_a_grant_of_sources_not_in_the_collection_then_exit_1_and_nothing_changes(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from groundwork.storage.base import SourceRecord
    from groundwork.storage.factory import get_storage

    get_retriever(get_settings()).upsert(cards())
    get_storage(get_settings()).put_source(
        SourceRecord(id="baltimore", collection="catechism", title=None, location="c.md",
                     content_hash="x", cards=4)
    )  # fmt: skip
    admin(capsys, "create-user", "gus")
    admin(capsys, "grant", "gus", "catechism")

    missing = admin(capsys, "grant", "gus", "catechism", "--sources", "nope")
    elsewhere = admin(capsys, "grant", "gus", "reports", "--sources", "baltimore")
    nobody = admin(capsys, "grants", "nobody")

    assert missing == (1, "", "groundwork admin: not found: source nope in catechism")
    assert elsewhere == (1, "", "groundwork admin: not found: source baltimore in reports")
    assert admin(capsys, "grants", "gus") == (0, "catechism", "")
    assert get_stores(get_settings()).accounts.get_collection("reports") is None
    assert nobody[0] == 1
