"""Small collections built in the test, and apps answering from them with chosen generators."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from groundwork.answer.service import AnswerService
from groundwork.api import answering
from groundwork.api.app import create_app
from groundwork.domain.cards import Card
from groundwork.generation.base import GenerationRequest, Generator
from groundwork.retrieval.factory import get_retriever
from groundwork.settings import Settings
from tests.conftest import checkout

CATECHISM = [
    ("Who made us?", "God made us."),
    (
        "Why did God make us?",
        "God made us to show forth His goodness and to share with us "
        "His everlasting happiness in heaven.",
    ),
    ("What is prayer?", "Prayer is the lifting up of our minds and hearts to God."),
    (
        "How many sacraments are there?",
        "There are seven sacraments: Baptism, Confirmation, "
        "Holy Eucharist, Penance, Anointing of the Sick, Holy Orders, and Matrimony.",
    ),
    (
        "What is Baptism?",
        "Baptism is the sacrament that gives our souls the new life of "
        "sanctifying grace by which we become children of God and heirs of heaven.",
    ),
]

CITATION_FIELDS = {
    "cited_text",
    "cited_text_heading",
    "document_title",
    "document_index",
    "document_author",
    "document_year",
    "document_reference",
    "source_url",
    "source_location",
    "supporting_text",
}


def catechism_cards() -> list[Card]:
    return [
        Card(
            id=f"catechism-{n}",
            collection="catechism",
            source_id="catechism",
            text=answer,
            heading=question,
            reference=str(n),
            title="Baltimore Catechism",
            author="Third Plenary Council of Baltimore",
            year="1891",
            url=f"https://example.org/catechism#{n}",
            tags=["sacraments"] if "sacrament" in answer else [],
        )
        for n, (question, answer) in enumerate(CATECHISM, start=1)
    ]


@pytest.fixture
def cards_settings(tmp_path: Path) -> Settings:
    """Keyword retrieval over the catechism cards only (the default collection): no docs, no
    model to load."""
    settings = Settings(
        data_dir=tmp_path / "data",
        bootstrap_docs=False,
        retrieval="keyword",
        default_collection="catechism",
    )
    get_retriever(settings).upsert(catechism_cards())
    return settings


@pytest.fixture
def cards_client(cards_settings: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(cards_settings)) as client:
        yield client


#: The docs the first start indexes beside the README here: those that say most about tests
#: and citations, what the questions below ask, so they compete with the README's answer.
#: The README and all fourteen docs would take about nine minutes to embed on two cores.
_DOCS = ("deploy.md", "chat.md", "chat-completions.md")


@pytest.fixture(scope="module")
def docs_client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    """The embedded defaults, seeded once per module on the first start from a checkout of
    this repository's README and some of its docs."""
    docs = checkout(tmp_path_factory.mktemp("checkout"), _DOCS)
    settings = Settings(data_dir=tmp_path_factory.mktemp("docs") / "data", docs_dir=docs)
    with TestClient(create_app(settings)) as client:
        yield client


class ScriptedGenerator(Generator):
    """Writes the given deltas; an exception among them is raised at that point."""

    def __init__(self, deltas: list[str | Exception]) -> None:
        self.deltas = deltas
        self.requests: list[GenerationRequest] = []
        self.closed = False

    def stream(self, request: GenerationRequest) -> Iterator[str]:
        self.requests.append(request)
        try:
            for delta in self.deltas:
                if isinstance(delta, Exception):
                    raise delta
                yield delta
        finally:
            self.closed = True


def with_generator(client: TestClient, settings: Settings, generator: Generator) -> None:
    """Make ``client``'s app answer with ``generator`` over ``settings``' index."""
    app: Any = client.app
    app.dependency_overrides[answering.answer_service] = lambda: AnswerService(
        get_retriever(settings), generator, k=settings.retrieval_k
    )


def sse_payloads(body: str) -> list[Any]:
    """Every ``data:`` line of an event stream, JSON-decoded (``[DONE]`` kept as a string)."""
    payloads: list[Any] = []
    for line in body.splitlines():
        if line.startswith("data: "):
            data = line[len("data: ") :]
            payloads.append(data if data == "[DONE]" else json.loads(data))
        else:
            assert line == "", f"unexpected line in the stream: {line!r}"
    return payloads


def chat(question: str, **extra: Any) -> dict[str, Any]:
    return {"model": "groundwork-1", "messages": [{"role": "user", "content": question}]} | extra
