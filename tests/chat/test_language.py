"""Native chat answers from the documents in the asked language, and says which it wrote in."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from groundwork.domain.cards import Card
from groundwork.retrieval.factory import get_retriever
from groundwork.storage.factory import get_stores
from tests.chat.fixtures import World, ask, bearer

PARALLEL = {
    "en": [
        ("How many sacraments are there?", "There are seven sacraments: Baptism, "
         "Confirmation, Holy Eucharist, Penance, Anointing of the Sick, Holy Orders, and "
         "Matrimony."),
        ("What is prayer?", "Prayer is the lifting up of our minds and hearts to God."),
    ],
    "de": [
        ("Wie viele Sakramente gibt es?", "Es gibt sieben Sakramente: die Taufe, die Firmung, "
         "die heilige Eucharistie, die Buße, die Krankensalbung, die Weihe und die Ehe."),
        ("Was ist das Gebet?", "Das Gebet ist die Erhebung unseres Geistes und unseres Herzens "
         "zu Gott."),
    ],
}  # fmt: skip


@pytest.fixture
def katechismus(world: World) -> str:
    """A collection holding the same answers in English and in German, granted to alice."""
    cards = [
        Card(id=f"{lang}-{n}", collection="katechismus", source_id=f"katechismus-{lang}",
             text=text, heading=heading, url=f"https://example.org/{lang}#{n}", language=lang)
        for lang, pairs in PARALLEL.items()
        for n, (heading, text) in enumerate(pairs)
    ]  # fmt: skip
    get_retriever(world.settings).upsert(cards)
    accounts = get_stores(world.settings).accounts
    accounts.create_collection("katechismus")
    accounts.grant("alice", "katechismus")
    return "katechismus"


def post(client: TestClient, world: World, body: dict[str, Any]) -> dict[str, Any]:
    response = client.post("/v1/chat", json=body, headers=bearer(world.keys["alice"]))
    assert response.status_code == 200, response.text
    done: dict[str, Any] = response.json()
    return done


def test_given_the_same_content_in_two_languages_when_asked_in_german_then_german_is_cited(
    client: TestClient, world: World, katechismus: str
) -> None:
    german = post(client, world, ask("Wie viele Sakramente gibt es?", collection=katechismus))
    english = post(client, world, ask("How many sacraments are there?", collection=katechismus))

    assert german["text"].startswith("Es gibt sieben Sakramente")
    assert {c["source_url"] for c in german["citations"]} == {"https://example.org/de#0"}
    assert (german["language"], german["requested_language"]) == ("de", "de")
    assert {c["source_url"] for c in english["citations"]} == {"https://example.org/en#0"}
    assert (english["language"], english["requested_language"]) == ("en", "en")


def test_given_no_document_in_the_asked_language_when_answered_then_the_texts_language_is_told(
    client: TestClient, world: World, katechismus: str
) -> None:
    done = post(
        client, world, ask("How many sacraments are there?", collection="catechism", language="de")
    )

    assert "seven sacraments" in done["text"]
    assert (done["language"], done["requested_language"]) == ("en", "de")


def test_given_a_cached_answer_when_asked_again_then_it_keeps_its_language(
    client: TestClient, world: World, katechismus: str
) -> None:
    body = ask("How many sacraments are there?", collection="catechism", language="de")
    first, second = post(client, world, body), post(client, world, body)

    assert second["cached"] is True
    assert (second["language"], second["requested_language"]) == ("en", "de")
    assert first["language"] == second["language"]


@pytest.mark.parametrize(("given", "status"), [(" DE ", 200), ("deu", 400), ("d1", 400)])
def test_given_a_language_in_any_case_when_asked_then_the_code_is_normalised_or_refused(
    client: TestClient, world: World, katechismus: str, given: str, status: int
) -> None:
    body = ask("Wie viele Sakramente gibt es?", collection=katechismus, language=given)

    response = client.post("/v1/chat", json=body, headers=bearer(world.keys["alice"]))

    assert response.status_code == status, response.text
    if status == 200:
        assert response.json()["requested_language"] == "de"
    else:
        assert response.json()["error"]["code"] == "request.invalid"
