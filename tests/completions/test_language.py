"""Chat completions prefer documents in the asked language and report the text's language."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest
from fastapi.testclient import TestClient

from groundwork.api.app import create_app
from groundwork.ingest.pipeline import Ingestor
from groundwork.retrieval.factory import get_retriever
from groundwork.settings import Settings
from groundwork.storage.factory import get_storage
from tests.completions.conftest import catechism_cards, chat, sse_payloads
from tests.completions.test_providers import (  # the fake model endpoint and its fixture
    FakeEndpoint,
    Reply,
    endpoint,  # noqa: F401
)

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

DOCUMENTS = {
    "en/testing.md": "# Testing\n\nThe tests are run with the script scripts/test.sh, which checks "
    "the formatting, the types and then runs every test of the project. A test that needs a "
    "server starts it on a free port and stops it at the end.\n",
    "de/testen.md": "# Testen\n\nDie Tests werden mit dem Skript scripts/test.sh ausgeführt, das "
    "zuerst die Formatierung und die Typen prüft und danach jeden Test des Projekts ausführt. "
    "Ein Test, der einen Server braucht, startet ihn auf einem freien Port und hält ihn am Ende "
    "an.\n",
    "en/deploying.md": "# Deploying\n\nThe service is deployed with SAM: the template builds one "
    "layer with the package and one function per entry point, behind API Gateway. Every "
    "deployment runs the smoke tests against the new stage before traffic moves to it.\n",
    "de/bereitstellen.md": "# Bereitstellen\n\nDer Dienst wird mit SAM bereitgestellt: die "
    "Vorlage baut eine Schicht mit dem Paket und eine Funktion je Einstiegspunkt, hinter dem "
    "API Gateway. Jede Bereitstellung führt die Rauchtests gegen die neue Stufe aus, bevor der "
    "Verkehr auf sie umzieht.\n",
}  # fmt: skip


@pytest.fixture(scope="module")
def parallel_client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    """The embedded defaults (e5 hybrid) over the same documents in English and German."""
    root = tmp_path_factory.mktemp("parallel")
    for name, text in DOCUMENTS.items():
        (root / name).parent.mkdir(exist_ok=True)
        (root / name).write_text(text)
    settings = Settings(data_dir=root / "data", bootstrap_docs=False, default_collection="docs")
    report = Ingestor(get_retriever(settings), get_storage(settings)).ingest(
        sorted(root.glob("*/*.md")), collection="docs", root=root
    )
    assert report.failed == {}
    with TestClient(create_app(settings)) as client:
        yield client


def ask(client: TestClient, question: str, **extra: Any) -> dict[str, Any]:
    response = client.post("/v1/chat/completions", json=chat(question, **extra))
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


@pytest.mark.parametrize("quality", ["fast", "precise"])
def test_given_parallel_documents_when_asked_in_german_then_german_ones_are_cited(
    parallel_client: TestClient, quality: str
) -> None:
    body = ask(parallel_client, "Wie werden die Tests ausgeführt?", quality=quality)

    assert body["citations"]
    assert {c["source_url"].split("/")[0] for c in body["citations"]} == {"de"}
    assert (body["language"], body["requested_language"]) == ("de", "de")


@pytest.mark.parametrize("quality", ["fast", "precise"])
@pytest.mark.parametrize(
    ("question", "quoted"),
    [
        ("How is the service deployed with SAM?", "Der Dienst wird mit SAM bereitgestellt"),
        ("Which layer does the template build?", "baut eine Schicht"),  # no word shared
    ],
)
def test_given_parallel_documents_when_asked_in_english_for_german_then_german_answers(
    parallel_client: TestClient, quality: str, question: str, quoted: str
) -> None:
    """The question finds the German passage by meaning, and the composer quotes it."""
    body = ask(parallel_client, question, language="de", quality=quality)

    assert {c["source_url"].split("/")[0] for c in body["citations"]} == {"de"}
    assert quoted in body["choices"][0]["message"]["content"]
    assert (body["language"], body["requested_language"]) == ("de", "de")


def test_given_parallel_documents_when_asked_in_french_then_the_answer_says_it_is_not(
    parallel_client: TestClient,
) -> None:
    body = ask(parallel_client, "Comment les tests sont-ils exécutés avec scripts/test.sh ?")

    assert body["requested_language"] == "fr"
    assert body["language"] in ("en", "de")
    assert body["language"] != body["requested_language"]


def test_given_a_stream_when_it_ends_then_the_last_chunk_carries_both_languages(
    parallel_client: TestClient,
) -> None:
    response = parallel_client.post(
        "/v1/chat/completions", json=chat("Wie werden die Tests ausgeführt?", stream=True)
    )

    last = [p for p in sse_payloads(response.text) if p != "[DONE]"][-1]
    assert (last["language"], last["requested_language"]) == ("de", "de")


@pytest.fixture
def model_settings(endpoint: FakeEndpoint, tmp_path: Path) -> Settings:  # noqa: F811
    settings = Settings(
        data_dir=tmp_path / "data",
        bootstrap_docs=False,
        retrieval="keyword",
        generation="openai",
        generation_base_url=endpoint.url,
        generation_model="tiny-model",
        default_collection="catechism",
    )
    get_retriever(settings).upsert(catechism_cards())
    return settings


@pytest.mark.parametrize(
    ("reply", "written"),
    [
        (["Das Gebet ist die Erhebung unseres Geistes ", "und Herzens zu Gott [1]."], "de"),
        (["Prayer is the lifting up of our minds ", "and hearts to God [1]."], "en"),
    ],
)
def test_given_a_model_asked_for_german_when_it_answers_then_its_language_is_checked(
    endpoint: FakeEndpoint,  # noqa: F811
    model_settings: Settings,
    reply: list[str],
    written: str,
) -> None:
    endpoint.replies.append(Reply(deltas=reply))

    with TestClient(create_app(model_settings)) as client:
        body = ask(client, "What is prayer?", language="de")

    system = endpoint.requests[0]["messages"][0]["content"]
    assert "Write the answer in German (ISO 639-1 'de')" in system
    assert (body["language"], body["requested_language"]) == (written, "de")
