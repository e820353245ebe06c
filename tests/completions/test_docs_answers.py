"""POST /v1/chat/completions answers from the default collection (this repository's docs)."""

import re

from fastapi.testclient import TestClient
from openai import OpenAI

from tests.completions.conftest import CITATION_FIELDS
from tests.conftest import REPO


def ask(client: TestClient, question: str, **extra: object) -> dict[str, object]:
    payload = {"model": "groundwork-1", "messages": [{"role": "user", "content": question}]}
    response = client.post("/v1/chat/completions", json=payload | extra)
    assert response.status_code == 200, response.text
    body: dict[str, object] = response.json()
    return body


def test_given_the_docs_when_asked_how_to_run_the_tests_then_the_readme_is_cited(
    docs_client: TestClient,
) -> None:
    body = ask(docs_client, "How do I run the tests?")

    content = body["choices"][0]["message"]["content"]  # type: ignore[index]
    citations = body["citations"]
    assert isinstance(citations, list)
    assert citations
    readme = " ".join((REPO / "README.md").read_text().split())
    assert any(
        c["source_url"].startswith("README.md") and " ".join(c["cited_text"].split()) in readme
        for c in citations
    )
    assert "scripts/test.sh" in content


def test_given_an_answer_when_rendered_then_markers_and_citations_line_up(
    docs_client: TestClient,
) -> None:
    body = ask(docs_client, "How is an answer cited?")

    content = body["choices"][0]["message"]["content"]  # type: ignore[index]
    citations = body["citations"]
    assert isinstance(citations, list)
    markers = {int(n) for n in re.findall(r"\[(\d+)\]", content)}
    assert markers == set(range(1, len(citations) + 1))
    for index, citation in enumerate(citations):
        assert set(citation) == CITATION_FIELDS
        assert citation["document_index"] == index
        assert citation["source_url"]
    assert body["object"] == "chat.completion"
    assert body["choices"][0]["finish_reason"] == "stop"  # type: ignore[index]
    usage = body["usage"]
    assert isinstance(usage, dict)
    assert usage["completion_tokens"] > 0
    assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"]


def test_given_text_parts_and_a_system_message_when_asked_then_the_last_user_text_is_answered(
    docs_client: TestClient,
) -> None:
    messages = [
        {"role": "system", "content": "Answer briefly."},
        {"role": "user", "content": [{"type": "text", "text": "How do I run the tests?"}]},
    ]
    response = docs_client.post(
        "/v1/chat/completions", json={"model": "groundwork-1", "messages": messages}
    )
    assert response.status_code == 200
    assert "scripts/test.sh" in response.json()["choices"][0]["message"]["content"]


def test_given_a_question_the_docs_do_not_cover_when_asked_then_no_citation_is_invented(
    docs_client: TestClient,
) -> None:
    body = ask(docs_client, "Zanzibar quokka xylophone?")

    assert body["citations"] == []
    assert "could not find" in body["choices"][0]["message"]["content"]  # type: ignore[index]


def test_given_a_collection_that_does_not_exist_when_asked_then_404_collections_not_found(
    docs_client: TestClient,
) -> None:
    payload = {"model": "groundwork-1", "messages": [{"role": "user", "content": "Tests?"}]}

    response = docs_client.post("/v1/chat/completions", json=payload | {"collection": "nowhere"})

    assert response.status_code == 404
    assert response.json()["error"]["code"] == "collections.not_found"


def test_given_a_scope_when_asked_then_its_collections_replace_the_collection(
    docs_client: TestClient,
) -> None:
    body = ask(
        docs_client,
        "How do I run the tests?",
        collection="nowhere",
        scope={"collections": ["default"], "tags": []},
    )

    assert body["citations"]
    assert all(c["source_url"] for c in body["citations"])  # type: ignore[union-attr]


def test_given_a_scope_source_that_does_not_exist_when_asked_then_404_sources_not_found(
    docs_client: TestClient,
) -> None:
    payload = {"model": "groundwork-1", "messages": [{"role": "user", "content": "Tests?"}]}

    response = docs_client.post(
        "/v1/chat/completions", json=payload | {"scope": {"source_id": "no-such-source"}}
    )

    assert response.status_code == 404
    assert response.json()["error"]["code"] == "sources.not_found"


def test_given_the_openai_sdk_when_it_calls_the_service_then_citations_are_readable(
    docs_client: TestClient,
) -> None:
    sdk = OpenAI(base_url="http://testserver/v1", api_key="unused", http_client=docs_client)

    reply = sdk.chat.completions.create(
        model="groundwork-1",
        messages=[{"role": "user", "content": "How do I run the tests?"}],
    )

    assert reply.choices[0].message.content
    citations = reply.model_extra["citations"]  # type: ignore[index]
    assert citations[0]["document_index"] == 0
    assert citations[0]["source_url"].startswith("README.md")


def test_health_and_openapi_are_served(docs_client: TestClient) -> None:
    assert docs_client.get("/health").json()["status"] == "ok"
    spec = docs_client.get("/openapi.json").json()
    assert "/v1/chat/completions" in spec["paths"]


def test_given_english_docs_when_asked_in_german_then_the_english_text_is_labelled_english(
    docs_client: TestClient,
) -> None:
    german = ask(docs_client, "Wie führe ich die Tests aus?")
    asked_for = ask(docs_client, "How do I run the tests?", language="de")

    for body in (german, asked_for):
        assert (body["language"], body["requested_language"]) == ("en", "de")
    assert "scripts/test.sh" in asked_for["choices"][0]["message"]["content"]  # type: ignore[index]
