"""``POST /v1/search``: results carry the citation fields; bad input gets a coded 400."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from groundwork.api.app import create_app
from groundwork.retrieval.factory import get_retriever
from groundwork.settings import Settings
from tests.retrieval.conftest import card


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    settings = Settings(data_dir=tmp_path / "data", bootstrap_docs=False, retrieval="keyword")
    get_retriever(settings).upsert(
        [
            card("c1", "34. The Church's teaching on moral questions rests on reason.",
                 collection="bishops", heading="Moral teaching", reference="34",
                 title="Cherishing Life", author="Bishops' Conference", year="2004",
                 url="https://example.org/cherishing-life#34", tags=["ethics"]),
            card("c2", "Moral questions about medicine.", collection="bishops"),
            card("c3", "Moral questions in another place.", collection="other"),
        ]
    )  # fmt: skip
    with TestClient(create_app(settings)) as test_client:
        yield test_client


def test_given_a_query_when_searching_then_results_carry_the_citation_fields(
    client: TestClient,
) -> None:
    response = client.post(
        "/v1/search", json={"query": "moral teaching reason", "collection": "bishops"}
    )

    assert response.status_code == 200
    first = response.json()["results"][0]
    assert first == {
        "card_id": "c1",
        "score": first["score"],
        "cited_text": "34. The Church's teaching on moral questions rests on reason.",
        "cited_text_heading": "Moral teaching",
        "document_title": "Cherishing Life",
        "document_author": "Bishops' Conference",
        "document_year": "2004",
        "document_reference": "34",
        "source_url": "https://example.org/cherishing-life#34",
    }


def test_given_a_scope_with_tags_when_searching_then_it_replaces_the_collection(
    client: TestClient,
) -> None:
    body = {"query": "moral questions", "collection": "nowhere", "k": 5, "quality": "fast",
            "scope": {"collections": ["bishops", "other"]}}  # fmt: skip
    ids = {r["card_id"] for r in client.post("/v1/search", json=body).json()["results"]}
    tagged = client.post("/v1/search", json={**body, "tags": ["ethics"]}).json()["results"]

    assert ids == {"c1", "c2", "c3"}
    assert [r["card_id"] for r in tagged] == ["c1"]


@pytest.mark.parametrize(
    ("body", "status", "code", "param"),
    [
        ({"query": "x", "k": 0}, 400, "request.invalid", "k"),
        ({"query": "x", "k": 51}, 400, "request.invalid", "k"),
        ({"query": ""}, 400, "request.invalid", "query"),
        ({"query": "   "}, 400, "query.empty", "query"),
        ({"query": "x", "quality": "best"}, 400, "request.invalid", "quality"),
        ({"query": "x", "collection": "nowhere"}, 404, "collections.not_found", "collection"),
        ({"query": "x", "colection": "typo"}, 400, "request.invalid", "colection"),
    ],
)
def test_given_bad_input_when_searching_then_a_coded_error_comes_back(
    client: TestClient, body: dict[str, object], status: int, code: str, param: str
) -> None:
    response = client.post("/v1/search", json=body)

    assert response.status_code == status
    assert response.json()["error"]["code"] == code
    assert response.json()["error"]["param"] == param
