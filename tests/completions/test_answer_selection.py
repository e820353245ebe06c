"""The extractive composer answers first, refuses what the documents do not answer, and the
answerability check flags a model's answer that does not address the question."""

from __future__ import annotations

from pathlib import Path

import pytest

from groundwork.answer.answerability import answerability, answers
from groundwork.answer.service import AnswerService
from groundwork.domain.cards import Card
from groundwork.generation.base import Turn
from groundwork.generation.extractive import NOT_FOUND, ExtractiveComposer
from groundwork.ingest.pipeline import cards_of, parse
from groundwork.retrieval.base import SearchFilter
from groundwork.retrieval.keyword import KeywordIndex
from groundwork.text.terms import terms
from tests.completions.conftest import ScriptedGenerator
from tests.conftest import SHARED

CORPORA = SHARED / "data" / "corpora"
EVERYTHING = SearchFilter(collections=["corpora"])


@pytest.fixture(scope="module")
def corpora(tmp_path_factory: pytest.TempPathFactory) -> KeywordIndex:
    """The shipped corpora (catechism, Federalist, Constitution) as ingested by the service."""
    index = KeywordIndex(tmp_path_factory.mktemp("corpora") / "index.sqlite")
    for path in (
        CORPORA / "baltimore-catechism" / "catechism.txt",
        CORPORA / "federalist" / "federalist.html",
        CORPORA / "us-constitution" / "constitution.txt",
    ):
        document = parse(path.suffix, path.read_bytes())
        index.upsert(cards_of(document, "corpora", path.stem, path.name, []))
    return index


def ask(index: KeywordIndex, question: str) -> tuple[str, list[str], float]:
    service = AnswerService(index, ExtractiveComposer(), k=5)
    answer = service.answer([Turn("user", question)], EVERYTHING)
    return answer.text, [c.cited_text for c in answer.citations], answer.answerability


def test_given_the_catechism_when_asked_how_many_sacraments_then_the_answer_leads(
    corpora: KeywordIndex,
) -> None:
    text, citations, score = ask(corpora, "How many Sacraments are there?")

    assert text.startswith("There are seven Sacraments"), text
    assert citations
    assert answers(score)


def test_given_the_corpora_when_asked_about_peru_then_it_refuses_without_citations(
    corpora: KeywordIndex,
) -> None:
    text, citations, score = ask(corpora, "What is the capital of Peru?")

    assert text == NOT_FOUND
    assert citations == []
    assert not answers(score)


@pytest.mark.parametrize(
    "question",
    [
        "How many Sacraments are there?",
        "What is the term of a Representative?",
        "Who made the world?",
        "What is prayer?",
    ],
)
def test_given_a_question_when_answered_then_the_answer_does_not_open_by_restating_it(
    corpora: KeywordIndex, question: str
) -> None:
    text, _, _ = ask(corpora, question)

    first = text.split(" [")[0]
    assert not first.rstrip().endswith("?"), text
    assert set(terms(first)) - set(terms(question)), text


def test_given_a_passage_that_asks_the_question_then_its_question_is_not_the_answer(
    tmp_path: Path,
) -> None:
    index = KeywordIndex(tmp_path / "index.sqlite")
    index.upsert(
        [
            Card(
                id="raw",
                collection="c",
                source_id="s",
                url="u",
                text="How many Sacraments are there? There are seven Sacraments in all.",
            )
        ]
    )
    service = AnswerService(index, ExtractiveComposer(), k=5)

    text = service.answer(
        [Turn("user", "How many Sacraments are there?")], SearchFilter(collections=["c"])
    ).text

    assert text == "There are seven Sacraments in all. [1]"


def test_given_passages_when_scored_then_answerability_separates_answered_from_not(
    corpora: KeywordIndex,
) -> None:
    sacraments = [h.card for h in corpora.search("How many Sacraments are there?", EVERYTHING, 5)]
    peru = [h.card for h in corpora.search("What is the capital of Peru?", EVERYTHING, 5)]

    assert answerability("How many Sacraments are there?", sacraments) > answerability(
        "What is the capital of Peru?", peru
    )
    assert 0.0 <= answerability("What is the capital of Peru?", peru) <= 1.0


def test_given_a_model_answer_that_ignores_the_question_then_answerability_flags_it(
    corpora: KeywordIndex,
) -> None:
    question = [Turn("user", "How many Sacraments are there?")]
    on_topic = ScriptedGenerator(["There are seven Sacraments [1]."])
    off_topic = ScriptedGenerator(["The weather in Lima is mild all year round [1]."])

    good = AnswerService(corpora, on_topic, k=5).answer(question, EVERYTHING)
    bad = AnswerService(corpora, off_topic, k=5).answer(question, EVERYTHING)

    assert answers(good.answerability)
    assert not answers(bad.answerability)
    assert good.refusal_reason is None
    # No passage backs the weather in Lima: the verifier removes its marker, and the answer
    # says it was not grounded rather than that the documents do not answer.
    assert bad.citations == []
    assert bad.refusal_reason == "answer_not_grounded"
    assert bad.confidence < good.confidence


def test_given_a_question_about_a_document_then_its_cards_metadata_answer_it(
    corpora: KeywordIndex,
) -> None:
    service = AnswerService(corpora, ExtractiveComposer(), k=5)

    answer = service.answer([Turn("user", "Who wrote Federalist No. 51?")], EVERYTHING)

    assert answer.text == "It was written by Madison. [1]"
    (heading,) = [c.cited_text_heading for c in answer.citations]
    assert heading is not None
    assert heading.startswith("FEDERALIST No. 51.")
    assert [c.document_author for c in answer.citations] == ["Madison"]


GUIDE = (
    "# Acme client\n\n## Install\n\nThe client is a small package for talking to the Acme "
    "service. Install the client with pip:\n\n```sh\npip install acme-client\nacme --version\n"
    "```\n\nThe client needs Python 3.10 or later.\n"
)


def test_given_a_how_to_question_when_a_passage_shows_the_code_then_the_answer_holds_it(
    tmp_path: Path,
) -> None:
    """Given a guide whose install command is a code block, when asked how to install, the
    answer is the sentence that introduces the code, its marker, then the code with its line
    breaks; asked something else, the code is never quoted."""
    index = KeywordIndex(tmp_path / "index.sqlite")
    index.upsert(cards_of(parse(".md", GUIDE.encode()), "corpora", "guide", "guide.md", []))
    service = AnswerService(index, ExtractiveComposer(), k=5)

    how = service.answer([Turn("user", "How do I install the Acme client?")], EVERYTHING)
    which = [Turn("user", "Which Python version does the Acme client need?")]
    what = service.answer(which, EVERYTHING)

    assert how.text.startswith(
        "Install the client with pip: [1]\n\n```sh\npip install acme-client\n"
    )
    assert how.text.endswith("acme --version\n```")
    assert "```" not in what.text
    assert "Python 3.10" in what.text
    (support,) = how.grounding_supports
    assert support.segment.text == "Install the client with pip:"
