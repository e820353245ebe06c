"""``POST /v1/chat``: events, conversations, versions, and what each field does."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from groundwork.storage.factory import get_stores
from tests.chat.fixtures import SlowGenerator, World, ask, bearer, sse_events


def post(client: TestClient, world: World, body: dict[str, Any], user: str = "alice") -> Any:
    return client.post("/v1/chat", json=body, headers=bearer(world.keys[user]))


def feed(client: TestClient, world: World, conv_id: str, user: str = "alice") -> Any:
    return client.get(f"/v1/conversations/{conv_id}/feed", headers=bearer(world.keys[user]))


def test_given_stream_when_chatting_then_token_events_then_done_each_with_an_id(
    client: TestClient, world: World
) -> None:
    response = post(
        client,
        world,
        ask("How many sacraments are there?", stream=True),
    )
    events = sse_events(response.text)

    assert response.headers["content-type"].startswith("text/event-stream")
    assert [e["event"] for e in events[:-1]] == ["token"] * (len(events) - 1)
    assert len(events) > 2
    assert [e["id"] for e in events] == [str(n) for n in range(1, len(events) + 1)]
    done = events[-1]
    assert done["event"] == "done"
    assert done["data"]["text"] == "".join(e["data"]["text"] for e in events[:-1])
    assert set(done["data"]) >= {
        "question_id",
        "answer_id",
        "conversation_id",
        "text",
        "citations",
        "support_score",
        "cached",
    }
    assert done["data"]["cached"] is False
    assert done["data"]["support_score"] > 0.5
    assert "seven sacraments" in done["data"]["text"]


def test_given_stream_false_when_chatting_then_the_done_payload_as_json(
    client: TestClient, world: World
) -> None:
    response = post(client, world, ask("Who made us?"), user="bob")

    assert response.status_code == 200
    assert response.json()["text"].startswith("God made us.")
    assert response.json()["citations"][0]["source_url"] == "https://example.org/catechism#1"


def test_given_a_last_event_id_when_retrying_then_it_is_accepted_not_resumed(
    client: TestClient, world: World
) -> None:
    response = client.post(
        "/v1/chat",
        json=ask("Who made us?", stream=True),
        headers=bearer(world.keys["bob"]) | {"Last-Event-ID": "3"},
    )

    assert sse_events(response.text)[0]["id"] == "1"


def test_given_a_first_question_when_asking_then_the_conversation_is_created_with_its_feed(
    client: TestClient, world: World
) -> None:
    done = post(client, world, ask("What is prayer?", origin="suggestion")).json()

    items = feed(client, world, done["conversation_id"]).json()["items"]

    assert len(items) == 1
    assert items[0]["question_id"] == done["question_id"]
    assert items[0]["question"] == "What is prayer?"
    assert items[0]["answer"] == done["text"]
    assert items[0]["citations"] == done["citations"]
    assert items[0]["origin"] == "suggestion"
    assert [v["question_id"] for v in items[0]["versions"]] == [done["question_id"]]


def test_given_a_follow_up_when_asking_then_the_generator_gets_the_stored_history(
    client: TestClient, world: World, generator: SlowGenerator
) -> None:
    post(client, world, ask("What is prayer?", conversation_id="c1"))

    post(client, world, ask("What is Baptism?", conversation_id="c1"))

    assert generator.requests[1].history[0].content == "What is prayer?"
    assert len(feed(client, world, "c1").json()["items"]) == 2


def test_given_version_of_when_editing_a_question_then_old_kept_later_turns_hidden(
    client: TestClient, world: World
) -> None:
    first = post(client, world, ask("What is prayer?", conversation_id="c2")).json()
    post(client, world, ask("Who made us?", conversation_id="c2"))

    edited = post(
        client,
        world,
        ask("What is Baptism?", conversation_id="c2", version_of=first["question_id"]),
    ).json()
    items = feed(client, world, "c2").json()["items"]
    selected = client.post(
        "/v1/conversations/c2/versions",
        json={"question_id": first["question_id"]},
        headers=bearer(world.keys["alice"]),
    ).json()["items"]

    assert [i["question"] for i in items] == ["What is Baptism?"]
    assert [v["question_id"] for v in items[0]["versions"]] == [
        first["question_id"],
        edited["question_id"],
    ]
    assert [i["question"] for i in selected] == ["What is prayer?", "Who made us?"]


def test_given_version_of_with_another_quality_then_conversation_settings_unchanged(
    client: TestClient, world: World
) -> None:
    first = post(client, world, ask("What is prayer?", conversation_id="c3", quality="fast")).json()

    again = post(
        client,
        world,
        ask(
            "What is prayer?",
            conversation_id="c3",
            version_of=first["question_id"],
            quality="precise",
            bypass_cache=True,
        ),
    ).json()
    conversation = client.get("/v1/conversations/c3", headers=bearer(world.keys["alice"])).json()
    # Without a quality field, the conversation's setting applies.
    later = post(client, world, ask("Who made us?", conversation_id="c3")).json()

    assert again["quality"] == "precise"
    assert conversation["settings"]["quality"] == "fast"
    assert later["quality"] == "fast"


def test_given_a_question_of_another_conversation_when_versioning_then_404(
    client: TestClient, world: World
) -> None:
    other = post(client, world, ask("What is prayer?", conversation_id="c4")).json()
    post(client, world, ask("Who made us?", conversation_id="c5"))

    response = post(client, world, ask("Q?", conversation_id="c5", version_of=other["question_id"]))
    select = client.post(
        "/v1/conversations/c5/versions",
        json={"question_id": other["question_id"]},
        headers=bearer(world.keys["alice"]),
    )

    assert response.status_code == 404
    assert response.json()["error"]["code"] == "questions.not_found"
    assert select.status_code == 404
    assert select.json()["error"]["code"] == "questions.not_found"


def test_given_another_users_conversation_when_reading_or_asking_then_404(
    client: TestClient, world: World
) -> None:
    post(client, world, ask("What is prayer?", conversation_id="c6"))

    assert feed(client, world, "c6", user="bob").status_code == 404
    response = post(client, world, ask("Who made us?", conversation_id="c6"), user="bob")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "conversations.not_found"


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("card_ids", [f"c{n}" for n in range(51)]),
        ("conversation_id", "x" * 65),
        ("request_id", "r" * 65),
        ("quality", "slow"),
        ("language", "english"),
        ("export", "pdf"),
        ("messages", []),
    ],
)
def test_given_a_field_beyond_its_limits_when_chatting_then_400(
    client: TestClient, world: World, field: str, value: Any
) -> None:
    response = post(client, world, ask("Who made us?") | {field: value})

    assert response.status_code == 400
    assert response.json()["error"]["param"].startswith(field)


def test_given_card_ids_when_chatting_then_only_those_cards_are_cited(
    client: TestClient, world: World
) -> None:
    done = post(
        client, world, ask("How many sacraments are there?", card_ids=["catechism-4"])
    ).json()

    assert {c["source_url"] for c in done["citations"]} == {"https://example.org/catechism#4"}


def test_given_language_auto_or_explicit_when_chatting_then_requested_beside_the_texts_own(
    client: TestClient, world: World
) -> None:
    detected = post(client, world, ask("Wie viele Sakramente gibt es?")).json()
    explicit = post(client, world, ask("Wie viele Sakramente gibt es?", language="FR")).json()
    auto = post(client, world, ask("How many sacraments are there?", language="auto")).json()

    assert detected["requested_language"] == "de"
    assert explicit["requested_language"] == "fr"
    assert auto["requested_language"] == "en"
    # The collection is English only: every answer is English text, and says so.
    assert [d["language"] for d in (detected, explicit, auto)] == ["en", "en", "en"]


def test_given_export_formats_when_chatting_then_citations_become_footnotes(
    client: TestClient, world: World
) -> None:
    markdown = post(client, world, ask("What is prayer?", export="markdown")).json()["export"]
    html = post(client, world, ask("What is prayer?", export="html")).json()["export"]

    assert markdown["format"] == "markdown"
    assert "[^1]" in markdown["content"]
    # The footnote quotes the sentence that supports the answer.
    assert (
        "[^1]: Baltimore Catechism, What is prayer. “Prayer is the lifting up of our minds and "
        "hearts to God.” <https://example.org/catechism#2>"
    ) in markdown["content"]
    assert '<sup id="ref-1"><a href="#fn-1">1</a></sup>' in html["content"]
    assert '<li id="fn-1">' in html["content"]
    assert "<q>Prayer is the lifting up of our minds and hearts to God.</q>" in html["content"]


def test_given_tools_and_origin_when_chatting_then_recorded_on_the_question(
    client: TestClient, world: World
) -> None:
    done = post(client, world, ask("Who made us?", tools=True, origin="widget")).json()

    question = get_stores(world.settings).conversations.get_question(
        done["conversation_id"], done["question_id"]
    )

    assert question is not None
    assert question.details["tools"] is True
    assert question.details["origin"] == "widget"


def test_given_an_edit_into_a_short_question_then_the_new_question_alone_is_answered(
    client: TestClient, world: World
) -> None:
    post(
        client,
        world,
        ask("Is prayer lifting our minds and hearts to God?", conversation_id="c-edit"),
    )
    second = post(client, world, ask("Who made us?", conversation_id="c-edit")).json()

    edited = post(
        client,
        world,
        ask("What is Baptism?", conversation_id="c-edit", version_of=second["question_id"]),
    ).json()

    # Every citation is about Baptism; what the earlier turns asked about (creation, prayer)
    # stays out of the edited answer.
    headings = [c["cited_text_heading"] for c in edited["citations"]]
    assert edited["text"].startswith("Baptism is the sacrament"), edited["text"]
    assert headings[0] == "What is Baptism?"
    assert all("Baptism" in c["cited_text"] for c in edited["citations"]), edited["citations"]
    assert not {"Who made us?", "What is prayer?"} & set(headings), headings


def test_given_an_answer_when_done_then_it_carries_its_answerability_and_confidence(
    client: TestClient, world: World
) -> None:
    answered = post(client, world, ask("How many sacraments are there?")).json()
    refused = post(client, world, ask("What is the capital of Peru?")).json()
    cached = post(client, world, ask("How many sacraments are there?")).json()

    assert answered["answerability"] > refused["answerability"]
    assert answered["confidence"] > refused["confidence"]
    assert refused["citations"] == []
    assert 0.0 <= refused["answerability"] <= 1.0
    assert answered["refusal_reason"] is None
    assert refused["refusal_reason"] in ("no_relevant_passage", "passages_do_not_answer")
    assert cached["cached"]
    assert (cached["confidence"], cached["refusal_reason"]) == (answered["confidence"], None)
