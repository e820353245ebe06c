"""The OpenAI request fields and Groundwork's extensions, answered whole."""

import re

import pytest
from fastapi.testclient import TestClient

from groundwork.errors import ApiError
from groundwork.settings import Settings
from groundwork.text.tokens import count_tokens
from tests.completions.conftest import (
    CITATION_FIELDS,
    ScriptedGenerator,
    chat,
    with_generator,
)


def complete(client: TestClient, payload: dict[str, object]) -> dict[str, object]:
    response = client.post("/v1/chat/completions", json=payload)
    assert response.status_code == 200, response.text
    body: dict[str, object] = response.json()
    return body


def content_of(body: dict[str, object]) -> str:
    text: str = body["choices"][0]["message"]["content"]  # type: ignore[index]
    return text


def test_given_a_catechism_question_when_asked_then_the_answer_cites_the_right_card(
    cards_client: TestClient,
) -> None:
    body = complete(cards_client, chat("What is prayer?", collection="catechism"))

    assert "lifting up of our minds" in content_of(body)
    citations = body["citations"]
    assert isinstance(citations, list)
    assert citations[0]["document_reference"] == "3"
    assert set(citations[0]) == CITATION_FIELDS
    assert citations[0]["document_author"] == "Third Plenary Council of Baltimore"
    assert body["support_score"] >= 0.9


def test_given_an_answer_when_counted_then_usage_is_real_tokens(cards_client: TestClient) -> None:
    messages = [
        {"role": "developer", "content": "Be brief."},
        {"role": "user", "content": [{"type": "text", "text": "What is prayer?"}]},
    ]
    body = complete(
        cards_client, {"model": "groundwork-1", "messages": messages, "collection": "catechism"}
    )

    usage = body["usage"]
    assert usage == {
        "prompt_tokens": count_tokens("Be brief.", "What is prayer?"),
        "completion_tokens": count_tokens(content_of(body)),
        "total_tokens": count_tokens("Be brief.", "What is prayer?", content_of(body)),
    }


def test_given_n_other_than_one_when_posted_then_400_n_unsupported(
    cards_client: TestClient,
) -> None:
    response = cards_client.post("/v1/chat/completions", json=chat("What is prayer?", n=2))

    assert response.status_code == 400
    assert response.json()["error"]["code"] == "n.unsupported"
    assert response.json()["error"]["param"] == "n"


def test_given_more_than_four_stop_sequences_when_posted_then_400(
    cards_client: TestClient,
) -> None:
    payload = chat("What is prayer?", stop=["a", "b", "c", "d", "e"])
    response = cards_client.post("/v1/chat/completions", json=payload)

    assert response.status_code == 400
    assert response.json()["error"]["param"].startswith("stop")


def test_given_the_openai_sampling_fields_when_posted_then_they_reach_the_generator(
    cards_client: TestClient, cards_settings: Settings
) -> None:
    generator = ScriptedGenerator(["God made us. [1]"])
    with_generator(cards_client, cards_settings, generator)
    payload = chat(
        "Who made us?",
        collection="catechism",
        temperature=0.2,
        max_completion_tokens=50,
        stop="END",
        user="user-1",
        n=1,
        language="de",
        top_p=0.9,
    )

    complete(cards_client, payload)

    request = generator.requests[0]
    assert (request.temperature, request.max_tokens, request.stop) == (0.2, 50, ("END",))
    assert request.language == "de"
    assert request.passages[0].reference == "1"


def test_given_max_tokens_when_the_answer_is_longer_then_it_is_cut_with_finish_length(
    cards_client: TestClient,
) -> None:
    payload = chat("How many sacraments are there?", collection="catechism", max_tokens=4)
    body = complete(cards_client, payload)

    assert body["choices"][0]["finish_reason"] == "length"  # type: ignore[index]
    assert body["usage"]["completion_tokens"] <= 4  # type: ignore[index]
    assert count_tokens(content_of(body)) <= 4
    assert body["citations"] == []  # the marker did not make it into the text


def test_given_a_stop_sequence_when_it_appears_then_the_answer_ends_before_it(
    cards_client: TestClient,
) -> None:
    payload = chat("How many sacraments are there?", collection="catechism", stop=["Baptism"])
    body = complete(cards_client, payload)

    assert content_of(body) == "There are seven sacraments: "
    assert body["choices"][0]["finish_reason"] == "stop"  # type: ignore[index]


def test_given_tags_when_asked_then_only_tagged_documents_answer(
    cards_client: TestClient,
) -> None:
    body = complete(cards_client, chat("God made us", collection="catechism", tags=["sacraments"]))

    assert {c["document_reference"] for c in body["citations"]} <= {"4", "5"}  # type: ignore[union-attr]


def test_given_a_short_follow_up_when_asked_then_the_earlier_question_is_searched_too(
    cards_client: TestClient,
) -> None:
    messages = [
        {"role": "user", "content": "How many sacraments are there?"},
        {"role": "assistant", "content": "There are seven sacraments."},
        {"role": "user", "content": "Name them?"},
    ]
    body = complete(
        cards_client, {"model": "groundwork-1", "messages": messages, "collection": "catechism"}
    )

    assert "Matrimony" in content_of(body)


def test_given_a_generator_citing_the_wrong_passage_then_the_marker_moves_to_the_right_one(
    cards_client: TestClient, cards_settings: Settings
) -> None:
    generator = ScriptedGenerator(
        ["Prayer is the lifting up of our minds and hearts to God [2]. ", "Cheese is blue. [1]"]
    )
    with_generator(cards_client, cards_settings, generator)

    body = complete(cards_client, chat("What is prayer? Who made us?", collection="catechism"))

    assert content_of(body) == (
        "Prayer is the lifting up of our minds and hearts to God [1]. Cheese is blue."
    )
    assert [c["document_reference"] for c in body["citations"]] == ["3"]  # type: ignore[union-attr]
    assert body["support_score"] == pytest.approx(0.5, abs=0.05)  # one of two sentences


def test_given_markers_when_answered_then_every_marker_has_its_citation(
    cards_client: TestClient,
) -> None:
    body = complete(cards_client, chat("What is Baptism and prayer?", collection="catechism"))

    citations = body["citations"]
    assert isinstance(citations, list)
    markers = {int(n) for n in re.findall(r"\[(\d+)\]", content_of(body))}
    assert markers == set(range(1, len(citations) + 1))
    assert [c["document_index"] for c in citations] == list(range(len(citations)))


def test_given_a_provider_failure_when_answered_whole_then_its_api_error_is_returned(
    cards_client: TestClient, cards_settings: Settings
) -> None:
    failure = ApiError(504, "generation.timeout", "The model did not answer in time.")
    with_generator(cards_client, cards_settings, ScriptedGenerator([failure]))

    response = cards_client.post("/v1/chat/completions", json=chat("Who made us?"))

    assert response.status_code == 504
    assert response.json()["error"]["code"] == "generation.timeout"


def test_given_the_models_route_then_it_lists_the_configured_model(
    cards_client: TestClient,
) -> None:
    listing = cards_client.get("/v1/models").json()

    assert listing["object"] == "list"
    assert [m["id"] for m in listing["data"]] == ["groundwork-1"]
    assert cards_client.get("/v1/models/groundwork-1").json()["object"] == "model"
    missing = cards_client.get("/v1/models/gpt-4o")
    assert missing.status_code == 404
    assert missing.json()["error"]["code"] == "models.not_found"
