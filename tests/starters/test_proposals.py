"""Proposals at ingest: questions of the document, in its language, kept only when answered
with a citation; replaced when the source changes, gone when it is deleted."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from groundwork.answer.service import AnswerOptions
from groundwork.generation.base import Turn
from groundwork.ingest.document import Document, Passage
from groundwork.ingest.pipeline import parse
from groundwork.retrieval.base import SearchFilter
from groundwork.starters.candidates import candidates, document_language
from groundwork.starters.factory import answer_service
from groundwork.starters.proposer import StarterProposer
from tests.starters.conftest import GERMAN, Service

CATECHISM_LIKE = """Q. 1. Who made the world?
A. God made the world.

Q. 2. Who is God?
A. God is the Creator of heaven and earth, and of all things.

Q. 3. What is man?
A. Man is a creature composed of body and soul, and made to the image and likeness of God.

Q. 4. Why did God make you?
A. God made me to know Him, to love Him, and to serve Him in this world.
"""


def test_given_a_german_document_when_ingested_then_its_starters_are_german_and_answered(
    tmp_path: Path, service: Service
) -> None:
    shutil.copy(GERMAN, tmp_path / "brot.md")

    report = service.ingestor.ingest([tmp_path / "brot.md"], collection="backen", root=tmp_path)

    assert report.added == 1
    starters = service.stores.starters.list_starters("backen")
    assert [s.text for s in starters] == [
        "Wie wird der Sauerteig angesetzt?",
        "Welches Mehl eignet sich für Roggenbrot?",
        "Wie wird der Holzofen angeheizt?",
    ]
    (source,) = service.ingestor._storage.list_sources("backen")
    assert {(s.language, s.source_id, s.origin) for s in starters} == {
        ("de", source.id, "proposed")
    }
    answers = answer_service(service.settings)
    for starter in starters:
        answer = answers.answer(
            [Turn("user", starter.text)],
            SearchFilter(collections=["backen"]),
            AnswerOptions(language=starter.language),
        )
        assert answer.citations, starter.text
        assert all(c.document_title == "Brot backen" for c in answer.citations)


def test_given_a_changed_source_when_reingested_then_its_proposals_are_replaced(
    tmp_path: Path, service: Service
) -> None:
    document = tmp_path / "brot.md"
    shutil.copy(GERMAN, document)
    service.ingestor.ingest([document], collection="backen", root=tmp_path)
    document.write_text(document.read_text().replace("Holzofen", "Gasofen"))

    service.ingestor.ingest([document], collection="backen", root=tmp_path)

    texts = [s.text for s in service.stores.starters.list_starters("backen")]
    assert "Wie wird der Gasofen angeheizt?" in texts
    assert not any("Holzofen" in t for t in texts)
    assert len(texts) == 3

    service.ingestor.delete(document, collection="backen")

    assert service.stores.starters.list_starters("backen") == []


def test_given_a_check_that_refuses_when_proposing_then_nothing_is_kept(
    tmp_path: Path, service: Service
) -> None:
    shutil.copy(GERMAN, tmp_path / "brot.md")
    service.ingestor.ingest([tmp_path / "brot.md"], collection="backen", root=tmp_path)
    asked: list[tuple[str, int]] = []

    def refuse_all(question: str, answer: object) -> bool:
        asked.append((question, len(getattr(answer, "citations", []))))
        return False

    proposer = StarterProposer(
        answer_service(service.settings), service.stores.starters, checks=[refuse_all]
    )
    kept = proposer.propose(parse(".md", GERMAN.read_bytes()), "backen", "brot")

    assert kept == []
    assert service.stores.starters.list_starters("backen")  # the other source's stay
    # Each check sees the question and the pipeline's cited answer to it.
    assert len(asked) == 3
    assert all(citations > 0 for _, citations in asked)


def test_given_a_question_nothing_answers_when_proposing_then_it_is_dropped(
    service: Service,
) -> None:
    """An answer without a citation (the composer found nothing) keeps a candidate out."""
    document = Document(
        title="Notes",
        passages=[
            Passage("Q. 1. What colour is the sky?\nA. The sky is blue on a clear day."),
            Passage("Q. 2. Who wrote the Iliad?\nA. Homer wrote the Iliad."),
            Passage("Q. 3. Where do penguins live?\nA. Penguins live in the south."),
        ],
    )
    proposer = StarterProposer(answer_service(service.settings), service.stores.starters)

    kept = proposer.propose(document, "empty", "notes")  # "empty" holds no card at all

    assert kept == []


def test_given_a_qa_text_with_a_licence_when_candidates_are_read_then_its_own_questions_only() -> (
    None
):
    licence = Passage(
        "Q. 9. What is Project Gutenberg?\nA. This eBook is for the use of anyone, under the "
        "terms of the Project Gutenberg License."
    )
    passages = [Passage(p) for p in CATECHISM_LIKE.split("\n\n")]
    document = Document(title="Catechism", passages=[licence, *passages])

    found = candidates(document, document_language(document))

    assert [c.text for c in found] == [
        "Who made the world?",
        "Who is God?",
        "What is man?",
        "Why did God make you?",
    ]
    assert {(c.language, c.kind) for c in found} == {("en", "question")}


def test_given_german_headings_without_questions_when_read_then_german_questions_are_built() -> (
    None
):
    prose = "Der Sauerteig wird aus Roggenmehl und Wasser angesetzt und reift vier Tage lang."
    document = Document(
        title="Brot backen",
        passages=[
            Passage(prose, heading_path=["Brot backen", "Sauerteig ansetzen"]),
            Passage(prose, heading_path=["Brot backen", "Vorwort"]),
            Passage(prose, heading_path=["Brot backen", "Kapitel 2: Die richtige Mehlsorte"]),
        ],
    )

    found = candidates(document, document_language(document))

    assert [(c.text, c.language) for c in found] == [
        ("Was sagen die Dokumente zu „Sauerteig ansetzen“?", "de"),
        ("Was sagen die Dokumente zu „Die richtige Mehlsorte“?", "de"),
    ]


def test_given_an_essay_with_rhetorical_questions_when_read_then_its_headings_ask_instead() -> None:
    essay = Document(
        title="Essays",
        passages=[
            Passage(
                "Is it not plain that a divided people is weaker? Every nation has found so.",
                heading_path=["FEDERALIST No. 2. Concerning Dangers from Foreign Force"],
            ),
            *[
                Passage(f"The militia of each state is trained in its own way, part {n}.")
                for n in range(10)
            ],
            Passage("Writes are retried.", heading_path=["Retries and Failures (DynamoDB)"]),
            Passage("Nothing.", heading_path=["LESSON FIRST. ON THE END OF MAN."]),
        ],
    )

    found = candidates(essay, "en")

    assert [c.text for c in found] == [
        "What is said about dangers from foreign force?",
        "What is said about retries and failures (DynamoDB)?",
        "What is said about the end of man?",
    ]


def test_given_code_heavy_headings_when_read_then_only_those_a_person_would_ask_are_built() -> None:
    """Headings that are markup or code ("* ``attached``", "os.path.join()") make no starter;
    a heading in words about the same code does."""
    text = "The client retries a request three times before it gives up on the server."
    document = Document(
        title="Client guide",
        passages=[
            Passage(text, heading_path=["* ``attached`` * ``detached``"]),
            Passage(text, heading_path=["os.path.join() and friends"]),
            Passage(text, heading_path=["The --verbose flag of the client"]),
            Passage(text, heading_path=["Setting max_retries on requests"]),
            Passage(text, heading_path=["Retrying failed requests"]),
        ],
    )

    found = candidates(document, "en")

    assert [c.text for c in found] == ["What is said about retrying failed requests?"]


def test_given_the_configured_proposer_when_an_answer_is_not_answerable_then_it_is_refused(
    service: Service,
) -> None:
    from groundwork.answer.service import Answer
    from groundwork.starters.factory import starter_proposer
    from groundwork.starters.proposer import answerable

    proposer = starter_proposer(service.settings)
    assert proposer is not None
    assert answerable in proposer.checks
    cited = Answer(text="x [1]", citations=[], answerability=0.1)
    assert answerable("Q?", cited) is False
    assert answerable("Q?", Answer(text="x [1]", citations=[], answerability=0.9)) is True


def test_given_an_answer_just_above_the_refusal_threshold_then_it_is_no_starter() -> None:
    from groundwork.answer.confidence import THRESHOLD
    from groundwork.answer.service import Answer
    from groundwork.starters.proposer import STARTER_CONFIDENCE, clearly_answered

    barely = Answer(text="x [1]", citations=[], confidence=THRESHOLD + 0.01)
    clearly = Answer(text="x [1]", citations=[], confidence=STARTER_CONFIDENCE)

    assert STARTER_CONFIDENCE > 2 * THRESHOLD
    assert clearly_answered("Q?", barely) is False
    assert clearly_answered("Q?", clearly) is True


def test_given_tagged_documents_when_proposed_then_each_starter_carries_the_tags_it_is_drawn_from(
    tmp_path: Path, service: Service
) -> None:
    # A Markdown document's tags (front matter and --tags) are every card's; a JSONL row's
    # are its own card's, so each own question carries those of its row.
    (tmp_path / "brot.md").write_text(
        "---\ntags: [kitchen]\n---\n" + GERMAN.read_text().split("---\n", 2)[2]
    )
    rows = [
        ("Who made the world?", "God made the world.", ["public"]),
        ("Who is God?", "God is the Creator of heaven and earth.", ["public", "clergy"]),
        ("What is man?", "Man is a creature composed of body and soul.", ["clergy"]),
    ]
    (tmp_path / "qa.jsonl").write_text(
        "".join(json.dumps({"text": f"{q} {a}", "tags": tags}) + "\n" for q, a, tags in rows)
    )

    service.ingestor.ingest([tmp_path / "brot.md"], collection="c", root=tmp_path, tags=["bread"])
    service.ingestor.ingest([tmp_path / "qa.jsonl"], collection="c", root=tmp_path)

    tags = {s.text: s.tags for s in service.stores.starters.list_starters("c")}
    of_rows = {text: sorted(row_tags) for text, _, row_tags in rows}
    proposed_from_rows = {text: tags[text] for text in of_rows if text in tags}
    assert tags["Wie wird der Sauerteig angesetzt?"] == ["bread", "kitchen"]
    assert len(proposed_from_rows) >= 2
    assert proposed_from_rows == {text: of_rows[text] for text in proposed_from_rows}


def test_given_a_heading_over_passages_tagged_apart_then_its_starter_keeps_the_shared_tags() -> (
    None
):
    from groundwork.starters.candidates import Candidate
    from groundwork.starters.proposer import _drawn_from_tags

    document = Document(tags=["handbook"], passages=[
        Passage("The board met twice.", ["Board meetings"], tags=["board", "minutes"]),
        Passage("The board met in May.", ["Board meetings"], tags=["board"]),
        Passage("Opening hours are nine to five.", ["Opening hours"], tags=["public"]),
    ])  # fmt: skip

    heading = Candidate("What is said about board meetings?", "en", 0, "heading")
    question = Candidate("When did the board meet?", "en", 0, "question")

    assert _drawn_from_tags(document, heading, ["ingested"]) == ["board", "handbook", "ingested"]
    assert _drawn_from_tags(document, question, []) == ["board", "handbook", "minutes"]
