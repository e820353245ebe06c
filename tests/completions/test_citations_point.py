"""Citations point into their documents: ``source_location``, ``supporting_text`` and
``grounding_supports`` in completions (whole, streamed, through the openai SDK), native chat's
``done``, the cache, replays and the feed. Documents are ingested from files written here."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from openai import OpenAI

from groundwork.answer.citations import CitationStream
from groundwork.answer.verification import GroundedVerifier
from groundwork.api.app import create_app
from groundwork.domain.cards import Card
from groundwork.grounding.factory import get_verifier
from groundwork.ingest.pipeline import Ingestor, parse
from groundwork.retrieval.factory import get_retriever
from groundwork.settings import Settings
from groundwork.storage.factory import get_storage, get_stores
from tests.completions.conftest import ScriptedGenerator, chat, sse_payloads, with_generator
from tests.ingest.conftest import pdf

FILES: dict[str, bytes] = {
    "hours.pdf": pdf(
        [
            ["Opening hours of the city library.", "The library opens at nine every morning."],
            ["The reading room closes at eight in the evening.", "Visitors leave by then."],
        ],
        title="Library Hours",
        author="City Library",
    ),
    "cafe.md": (
        "# Café\n\n## Breakfast\n\nThe café ☕ serves espresso from seven every morning 🎉. "
        "Das Frühstück kostet 9 € und enthält Brötchen.\n"
    ).encode(),
    "notes.rst": (
        b":Author: Archive team\n\nArchive\n=======\n\nRules\n-----\n\n"
        b"The archive lends maps for two weeks. Late maps cost a fine.\n"
    ),
}


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    """The three documents ingested once for the module (tests that write add their own)."""
    tmp_path = tmp_path_factory.mktemp("library")
    settings = Settings(
        data_dir=tmp_path / "data",
        bootstrap_docs=False,
        retrieval="keyword",
        default_collection="library",
        starters_per_source=0,
        chat_wait_seconds=10,
    )
    docs = tmp_path / "docs"
    docs.mkdir()
    for name, raw in FILES.items():
        (docs / name).write_bytes(raw)
    Ingestor(get_retriever(settings), get_storage(settings)).ingest(
        sorted(docs.iterdir()), collection="library", root=docs
    )
    return settings


@pytest.fixture
def client(library: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(library)) as test_client:
        yield test_client


def document_text(name: str) -> str:
    return parse(Path(name).suffix, FILES[name]).text


def check_pointing(body: dict[str, Any], content: str) -> None:
    """Every supporting text is inside its cited text and its document at its location;
    every segment's byte range slices the delivered answer to its text."""
    texts = {Path(name).stem: document_text(name) for name in FILES}
    for citation in body["citations"]:
        location = citation["source_location"]
        supporting = citation["supporting_text"]
        assert supporting, citation
        assert supporting in citation["cited_text"]
        document = texts[citation["source_url"].split("#")[0].rsplit(".", 1)[0]]
        located = document[location["char_start"] : location["char_end"]]
        assert located == citation["cited_text"]
        assert supporting in located
    encoded = content.encode()
    assert body["grounding_supports"]
    for support in body["grounding_supports"]:
        segment = support["segment"]
        assert encoded[segment["start_index"] : segment["end_index"]].decode() == segment["text"]
        assert "[" not in segment["text"]  # the markers are left out
        assert len(support["citation_indices"]) == len(support["confidence_scores"])
        for index in support["citation_indices"]:
            assert body["citations"][index]["document_index"] == index


def test_given_a_fact_on_page_two_of_a_pdf_when_asked_then_the_citation_names_page_two(
    client: TestClient,
) -> None:
    response = client.post("/v1/chat/completions", json=chat("When does the reading room close?"))

    body = response.json()
    first = body["citations"][0]
    assert first["source_location"]["page"] == 2
    assert first["source_location"]["page_end"] == 2
    assert first["source_url"] == "hours.pdf#page=2"
    assert first["supporting_text"] == "The reading room closes at eight in the evening."
    check_pointing(body, body["choices"][0]["message"]["content"])


def test_given_an_rst_document_when_cited_then_its_section_path_is_the_location(
    client: TestClient,
) -> None:
    body = client.post("/v1/chat/completions", json=chat("How long does the archive lend maps?"))
    location = body.json()["citations"][0]["source_location"]

    assert location["section"] == ["Archive", "Rules"]
    assert location["page"] is None


def test_given_emoji_and_accents_when_answered_then_byte_offsets_slice_the_delivered_text(
    client: TestClient, library: Settings
) -> None:
    """Given a model that writes two sentences after text with emoji and accents, when the
    answer is delivered, then each segment's UTF-8 range gives its sentence back."""
    with_generator(
        client,
        library,
        ScriptedGenerator(
            [
                "The café ☕ serves espresso from seven every morning 🎉. [1] ",
                "Das Frühstück kostet 9 € und enthält Brötchen. [1]",
            ]
        ),
    )

    body = client.post("/v1/chat/completions", json=chat("When does the café serve espresso?"))

    answer = body.json()
    content = answer["choices"][0]["message"]["content"]
    segments = [s["segment"] for s in answer["grounding_supports"]]
    assert [s["text"] for s in segments] == [
        "The café ☕ serves espresso from seven every morning 🎉.",
        "Das Frühstück kostet 9 € und enthält Brötchen.",
    ]
    # Bytes, not characters: "é", "☕" and "🎉" take 2, 3 and 4 bytes.
    assert segments[1]["start_index"] == len(content[: content.index("Das")].encode())
    assert segments[1]["start_index"] == content.index("Das") + 1 + 2 + 3
    check_pointing(answer, content)


def test_given_cjk_and_emoji_when_streamed_through_the_citations_then_offsets_are_bytes() -> None:
    """The real verifier over CJK text: the second sentence's segment starts after three
    bytes per character of the first."""
    card = Card(
        id="tokyo",
        collection="c",
        source_id="s",
        text="東京は日本の首都です。富士山は日本で一番高い山です 🗻。",
        url="jp.md",
    )
    stream = CitationStream([card], GroundedVerifier(get_verifier()))

    text = "".join(
        stream.feed(d)
        for d in ["東京は日本の首都です。[1]", "富士山は日本で一番高い山です 🗻。[1]"]
    )
    text += stream.close()

    supports = stream.grounding_supports(text)
    assert [s.segment.text for s in supports] == [
        "東京は日本の首都です。", "富士山は日本で一番高い山です 🗻。"]  # fmt: skip
    encoded = text.encode()
    for support in supports:
        segment = support.segment
        assert encoded[segment.start_index : segment.end_index].decode() == segment.text
    assert supports[1].segment.start_index == len("東京は日本の首都です。[1]".encode())
    (citation,) = stream.citations
    assert citation.supporting_text == card.text


def test_given_a_stream_when_it_ends_then_the_last_chunk_carries_the_supports(
    client: TestClient,
) -> None:
    response = client.post(
        "/v1/chat/completions", json=chat("When does the reading room close?", stream=True)
    )

    chunks = [p for p in sse_payloads(response.text) if p != "[DONE]"]
    content = "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks)
    last = [c for c in chunks if "grounding_supports" in c]
    assert len(last) == 1
    assert last[0]["choices"][0]["finish_reason"] == "stop"
    check_pointing(last[0], content)


def test_given_the_openai_sdk_when_asked_then_it_keeps_locations_and_supports(
    client: TestClient,
) -> None:
    sdk = OpenAI(base_url="http://testserver/v1", api_key="unused", http_client=client)
    messages: Any = [{"role": "user", "content": "When does the reading room close?"}]

    reply = sdk.chat.completions.create(
        model="groundwork-1", messages=messages, extra_body={"collection": "library"}
    )
    chunks = list(
        sdk.chat.completions.create(
            model="groundwork-1",
            messages=messages,
            extra_body={"collection": "library"},
            stream=True,
        )
    )

    extra = reply.model_extra or {}
    assert extra["citations"][0]["source_location"]["page"] == 2
    check_pointing(extra, reply.choices[0].message.content or "")
    last = next(c for c in chunks if (c.model_extra or {}).get("grounding_supports"))
    streamed = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert last.model_extra is not None
    assert last.model_extra["citations"][0]["supporting_text"]
    check_pointing(last.model_extra, streamed)


def test_given_native_chat_when_answered_cached_and_replayed_then_each_keeps_the_supports(
    client: TestClient, library: Settings
) -> None:
    accounts = get_stores(library).accounts
    accounts.create_user("ann", "Ann")
    accounts.create_collection("library")
    accounts.grant("ann", "library")
    headers = {"Authorization": f"Bearer {accounts.issue_api_key('ann')}"}
    body = {
        "messages": [{"role": "user", "content": "When does the reading room close?"}],
        "collection": "library",
    }

    first = client.post("/v1/chat", json=body | {"request_id": "r1"}, headers=headers).json()
    cached = client.post("/v1/chat", json=body, headers=headers).json()
    replayed = client.post("/v1/chat", json=body | {"request_id": "r1"}, headers=headers).json()
    feed = client.get(f"/v1/conversations/{first['conversation_id']}/feed", headers=headers)

    assert (cached["cached"], replayed["replayed"]) == (True, True)
    for done in (first, cached, replayed):
        check_pointing(done, done["text"])
        assert done["citations"][0]["source_location"]["page"] == 2
        assert done["grounding_supports"] == first["grounding_supports"]
    (item,) = feed.json()["items"]
    assert item["grounding_supports"] == first["grounding_supports"]
    assert item["citations"][0]["supporting_text"] == first["citations"][0]["supporting_text"]


def test_given_html_references_in_a_passage_when_cited_then_the_supporting_text_is_as_stored() -> (
    None
):
    """The verifier reads "&amp;" as "&"; the supporting text is still the passage's own."""
    card = Card(
        id="menu",
        collection="c",
        source_id="s",
        text="Tea is free before noon. Fish &amp; chips cost 5 pounds on Fridays.",
        url="menu.md",
    )
    stream = CitationStream([card], GroundedVerifier(get_verifier()))

    text = stream.feed("Fish & chips cost 5 pounds on Fridays. [1]") + stream.close()

    (citation,) = stream.citations
    assert text.endswith("[1]")
    assert citation.supporting_text == "Fish &amp; chips cost 5 pounds on Fridays."
    assert citation.supporting_text in card.text
