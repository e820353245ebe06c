"""A document's year, answered from its cards' metadata and verified against that card only."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from groundwork.api.app import create_app
from groundwork.domain.cards import Card
from groundwork.retrieval.factory import get_retriever
from groundwork.settings import Settings
from tests.completions.conftest import ScriptedGenerator, chat, with_generator

PAPERS = [
    Card(
        id="federalist-10",
        collection="papers",
        source_id="federalist-10",
        text="Among the numerous advantages promised by a well constructed Union, none deserves "
        "to be more accurately developed than its tendency to break and control the violence "
        "of faction.",
        heading="Federalist No. 10",
        heading_path=["Federalist No. 10"],
        title="The Federalist Papers",
        author="Madison",
        year="1787",
        url="https://example.org/federalist#10",
    ),
    Card(
        id="federalist-70",
        collection="papers",
        source_id="federalist-70",
        text="Energy in the Executive is a leading character in the definition of good government.",
        heading="Federalist No. 70",
        heading_path=["Federalist No. 70"],
        title="The Federalist Papers",
        author="Hamilton",
        year="1788",
        url="https://example.org/federalist#70",
    ),
    Card(
        id="letter",
        collection="papers",
        source_id="letter",
        text="The harvest was late this autumn and the roads were flooded for a week.",
        heading="A Letter from Monticello",
        heading_path=["A Letter from Monticello"],
        title="Letters",
        author="Jefferson",
        url="https://example.org/letters#1",
    ),
]


@pytest.fixture
def papers_settings(tmp_path: Path) -> Settings:
    settings = Settings(
        data_dir=tmp_path / "data",
        bootstrap_docs=False,
        retrieval="keyword",
        default_collection="papers",
    )
    get_retriever(settings).upsert(PAPERS)
    return settings


@pytest.fixture
def papers(papers_settings: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(papers_settings)) as client:
        yield client


def complete(client: TestClient, question: str) -> dict[str, Any]:
    response = client.post("/v1/chat/completions", json=chat(question, collection="papers"))
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


@pytest.mark.parametrize(
    "question",
    [
        "When was Federalist No. 10 published?",
        "What year was Federalist No. 10 published?",
        "In what year was Federalist No. 10 written?",
    ],
)
def test_given_a_document_with_a_year_when_asked_when_it_was_written_then_its_year_answers(
    papers: TestClient, question: str
) -> None:
    body = complete(papers, question)

    assert body["choices"][0]["message"]["content"] == "It is from 1787. [1]"
    (citation,) = body["citations"]
    assert citation["cited_text_heading"] == "Federalist No. 10"
    assert citation["document_year"] == "1787"
    assert body["support_score"] >= 0.9
    assert body["answerability"] == 1.0


def test_given_a_document_without_a_year_when_asked_its_year_then_metadata_does_not_answer(
    papers: TestClient,
) -> None:
    body = complete(papers, "When was A Letter from Monticello written?")

    content = body["choices"][0]["message"]["content"]
    assert not content.startswith("It is from")
    assert not any(c["document_year"] for c in body["citations"])


def test_given_a_year_that_is_not_the_cited_cards_then_the_citation_is_not_verified(
    papers: TestClient, papers_settings: Settings
) -> None:
    # Federalist No. 10 is ranked first for this question; 1788 is No. 70's year, not its own.
    with_generator(papers, papers_settings, ScriptedGenerator(["It is from 1791. [1]"]))
    wrong = complete(papers, "When was Federalist No. 10 published?")
    with_generator(papers, papers_settings, ScriptedGenerator(["It is from 1787. [1]"]))
    right = complete(papers, "When was Federalist No. 10 published?")

    assert wrong["choices"][0]["message"]["content"] == "It is from 1791."
    assert wrong["citations"] == []
    assert wrong["support_score"] < 0.5
    assert [c["document_year"] for c in right["citations"]] == ["1787"]
    assert right["support_score"] >= 0.9


def test_given_another_cards_year_then_the_citation_moves_to_that_card_only(
    papers: TestClient, papers_settings: Settings
) -> None:
    with_generator(papers, papers_settings, ScriptedGenerator(["It is from 1788. [1]"]))

    body = complete(papers, "When was Federalist No. 10 published?")

    assert [c["cited_text_heading"] for c in body["citations"]] == ["Federalist No. 70"]
