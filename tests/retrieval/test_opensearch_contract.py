"""OpenSearch adapter: the exact requests it sends, retries, and the infra files it matches."""

from __future__ import annotations

import json
import logging
import time
from typing import Any

import pytest

from groundwork.answer.language import search_in_language
from groundwork.circuit import Circuit
from groundwork.retrieval import opensearch
from groundwork.retrieval.base import (
    IndexEmbedderMismatch,
    IndexReindexing,
    Restriction,
    RetrievalUnavailable,
    SearchFilter,
)
from groundwork.retrieval.meaning import DEPTH
from groundwork.retrieval.opensearch import MAPPING, PIPELINE, OpenSearchIndex, mapping
from tests.conftest import REPO
from tests.retrieval.conftest import HashingEmbedder, card

exceptions = pytest.importorskip("opensearchpy.exceptions")


class RecordingClient:
    """Stands in for ``opensearchpy.OpenSearch``: records every call, answers from a script."""

    def __init__(self, answers: dict[str, list[Any]] | None = None) -> None:
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.answers = answers or {}
        self.indices = self
        self.transport = self

    def _answer(self, name: str, **kwargs: Any) -> Any:
        self.calls.append((name, kwargs))
        queue = self.answers.get(name)
        answer = queue.pop(0) if queue else {}
        if isinstance(answer, Exception):
            raise answer
        return answer

    def bulk(self, **kwargs: Any) -> Any:
        return self._answer("bulk", **kwargs) or {"errors": False, "items": []}

    def search(self, **kwargs: Any) -> Any:
        return self._answer("search", **kwargs) or {"hits": {"hits": []}}

    def delete_by_query(self, **kwargs: Any) -> Any:
        return self._answer("delete_by_query", **kwargs)

    def count(self, **kwargs: Any) -> Any:
        return self._answer("count", **kwargs)

    def exists(self, **kwargs: Any) -> Any:
        return self._answer("exists", **kwargs)

    def create(self, **kwargs: Any) -> Any:
        return self._answer("create", **kwargs)

    def put_mapping(self, **kwargs: Any) -> Any:
        return self._answer("put_mapping", **kwargs)

    def refresh(self, **kwargs: Any) -> Any:
        return self._answer("refresh", **kwargs)

    def get_mapping(self, **kwargs: Any) -> Any:
        built_by = {
            "name": HashingEmbedder.model.name,
            "dimension": HashingEmbedder.model.dimension,
        }
        meta = {"embedding_model": built_by, "words_analyzer": opensearch.WORDS_ANALYZER}
        recorded = {"mappings": {"_meta": meta}}
        return self._answer("get_mapping", **kwargs) or {kwargs["index"]: recorded}

    def delete(self, **kwargs: Any) -> Any:
        return self._answer("delete", **kwargs)

    def perform_request(self, method: str, url: str, **kwargs: Any) -> Any:
        return self._answer("perform_request", method=method, url=url, **kwargs)


def adapter(client: RecordingClient, *, serverless: bool = False) -> OpenSearchIndex:
    return OpenSearchIndex(client, HashingEmbedder(), serverless=serverless, sleep=lambda _: None)


#: What the first write of a process sends before anything else.
SETUP = ["perform_request", "create"]
#: The first search or write asks which model built the index.
CHECK = "get_mapping"
CHECKED = ("get_mapping", {"index": "groundwork-cards", "request_timeout": 3.0})


def names(client: RecordingClient) -> list[str]:
    return [name for name, _ in client.calls]


WHERE = SearchFilter(collections=["c"], tags=["t"], period_start="2024", period_end="2024-06")
FILTERS = [
    {"terms": {"collection": ["c"]}},
    {"terms": {"tags": ["t"]}},
    {"bool": {"should": [{"range": {"period_start": {"lte": "2024-06-31"}}},
                         {"bool": {"must_not": [{"exists": {"field": "period_start"}}]}}],
              "minimum_should_match": 1}},
    {"bool": {"should": [{"range": {"period_end": {"gte": "2024-01-01"}}},
                         {"bool": {"must_not": [{"exists": {"field": "period_end"}}]}}],
              "minimum_should_match": 1}},
]  # fmt: skip
SOURCE = {"includes": ["card", "sentence_vectors"]}
KEYWORD = {
    "bool": {
        "must": [
            {
                "multi_match": {
                    "query": "tax",
                    "fields": ["text^10", "heading^4", "title^2"],
                    "type": "most_fields",  # the fields' scores add up, as FTS5's columns do
                }
            }
        ],
        "filter": FILTERS,
    }
}


def test_given_fast_quality_when_searching_then_one_filtered_bm25_query_is_sent() -> None:
    client = RecordingClient()

    adapter(client).search("tax", WHERE, 7, quality="fast")

    assert client.calls == [
        CHECKED,
        ("search", {"index": "groundwork-cards", "params": {}, "request_timeout": 3.0,
                    "body": {"size": 7, "_source": SOURCE, "query": KEYWORD}}),
    ]  # fmt: skip


def test_given_precise_quality_when_searching_then_a_hybrid_query_filters_inside_knn() -> None:
    """Its 30 best come back for the rerank (``retrieval.rerank``), which keeps ``k``."""
    client = RecordingClient()
    vector = [float(x) for x in HashingEmbedder().embed(["tax"], role="query")[0]]

    adapter(client).search("tax", WHERE, 7, quality="precise")

    assert client.calls == [
        CHECKED,
        ("search", {
            "index": "groundwork-cards",
            "params": {"search_pipeline": "groundwork-hybrid"},
            "request_timeout": 3.0,
            "body": {"size": 30, "_source": SOURCE, "query": {"hybrid": {"queries": [
                KEYWORD,
                {"knn": {"embedding": {"vector": vector, "k": 100,
                                       "filter": {"bool": {"filter": FILTERS}}}}},
            ]}}},
        }),
    ]  # fmt: skip


def test_given_a_hybrid_top_when_searching_precisely_then_it_is_reranked_here_to_k() -> None:
    """The hybrid ranks the passage that only shares the topic first; the rerank, the same as
    the embedded index's, puts the one holding every word of the question first, and keeps
    ``k``."""
    topic, answer, other = (
        card(id_, text).model_dump()
        for id_, text in [
            ("topic", "Taxes were debated at length."),
            ("answer", "Congress may lay a tax on imports."),
            ("other", "The senate meets in spring."),
        ]
    )
    hybrid = {"hits": {"hits": [
        {"_score": 0.9, "_source": {"card": topic}},
        {"_score": 0.7, "_source": {"card": answer}},
        {"_score": 0.2, "_source": {"card": other}},
    ]}}  # fmt: skip
    client = RecordingClient({"search": [hybrid]})

    hits = adapter(client).search("tax on imports congress", WHERE, 2, quality="precise")

    assert [h.card.id for h in hits] == ["answer", "topic"]


def test_given_cards_when_upserted_then_one_bulk_request_indexes_them_under_their_ids() -> None:
    client = RecordingClient()
    item = card(
        "a",
        "the senate",
        tags=["t"],
        heading_path=["Article 1"],
        period_start="1787",
        language="en",
    )

    adapter(client).upsert([item])

    assert names(client) == [*SETUP, CHECK, "bulk"]
    action, source = client.calls[-1][1]["body"]
    assert action == {"index": {"_index": "groundwork-cards", "_id": "a"}}
    assert len(source.pop("write_id")) == 32
    assert {k: v for k, v in source.items() if k not in ("embedding", "card")} == {
        "card_id": "a", "collection": "main", "source_id": "s1", "tags": ["t"], "language": "en",
        "period_start": "1787-01-01", "period_end": "1787-12-31", "char_start": None,
        "page": None, "text": "the senate", "heading": "Article 1", "title": "",
        "sentence_vectors": "", "latent_terms": "",
    }  # fmt: skip
    assert len(source["embedding"]) == HashingEmbedder.model.dimension
    assert source["card"]["id"] == "a"


def test_given_serverless_when_upserting_then_the_new_copy_is_written_before_the_old_goes() -> None:
    client = RecordingClient({"search": [{"hits": {"hits": [{"_id": "x1", "sort": ["w"]}]}}]})

    adapter(client, serverless=True).upsert([card("a", "the senate")])

    assert names(client) == [*SETUP, CHECK, "search", "bulk", "bulk"]
    assert client.calls[3][1]["body"]["query"] == {"terms": {"card_id": ["a"]}}
    assert client.calls[4][1]["body"][0] == {"index": {"_index": "groundwork-cards"}}
    assert client.calls[5][1]["body"] == [{"delete": {"_index": "groundwork-cards", "_id": "x1"}}]


def test_given_a_reingested_source_when_replaced_then_new_cards_go_before_stale_ones_go() -> None:
    client = RecordingClient({"delete_by_query": [{"deleted": 1}]})

    adapter(client).replace_source("s1", [card("a", "one"), card("b", "two")])

    # Refreshed first, or a stale card written a moment ago is not found and outlives it.
    assert names(client) == [*SETUP, CHECK, "bulk", "refresh", "delete_by_query"]
    assert client.calls[-1][1]["body"] == {"query": {"bool": {
        "filter": [{"term": {"source_id": "s1"}}],
        "must_not": [{"terms": {"card_id": ["a", "b"]}}],
    }}}  # fmt: skip


def test_given_serverless_when_a_source_is_replaced_then_its_old_ids_are_deleted_last() -> None:
    client = RecordingClient({"search": [{"hits": {"hits": [{"_id": "x1", "sort": ["w"]}]}}]})

    adapter(client, serverless=True).replace_source("s1", [card("a", "one")])

    assert names(client) == [*SETUP, CHECK, "search", "bulk", "bulk"]
    assert client.calls[3][1]["body"]["query"] == {"term": {"source_id": "s1"}}
    assert client.calls[5][1]["body"] == [{"delete": {"_index": "groundwork-cards", "_id": "x1"}}]


def test_given_more_ids_than_a_page_when_listed_then_pages_follow_the_unique_write_id() -> None:
    page = [{"_id": f"x{i}", "sort": [f"w{i:04d}"]} for i in range(1000)]
    last = {"hits": {"hits": [{"_id": "last", "sort": ["w9"]}]}}
    client = RecordingClient({"search": [{"hits": {"hits": page}}, last]})

    ids = adapter(client, serverless=True)._ids({"term": {"source_id": "s1"}})

    assert len(ids) == 1001
    first, second = (kwargs["body"] for _, kwargs in client.calls)
    assert first["sort"] == second["sort"] == [{"write_id": "asc"}]
    assert "search_after" not in first
    assert second["search_after"] == ["w0999"]


def test_given_many_cards_when_upserted_then_bulk_requests_stay_under_the_byte_limit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(opensearch, "MAX_BULK_BYTES", 6000)
    client = RecordingClient()

    adapter(client).upsert([card(f"c{i}", f"card number {i} " * 20) for i in range(12)])

    bodies = [kwargs["body"] for name, kwargs in client.calls if name == "bulk"]
    assert len(bodies) > 1
    for body in bodies:
        assert sum(len(json.dumps(line)) + 1 for line in body) <= 6000
        assert all("index" in action for action in body[::2])  # pairs are never split
    sent = [line["card_id"] for body in bodies for line in body[1::2]]
    assert sent == [f"c{i}" for i in range(12)]


def test_given_a_source_when_deleted_on_a_managed_domain_then_delete_by_query_is_sent() -> None:
    client = RecordingClient({"delete_by_query": [{"deleted": 3}]})

    assert adapter(client).delete_source("s1") == 3
    assert client.calls[len(SETUP) :] == [
        ("refresh", {"index": "groundwork-cards"}),
        ("delete_by_query", {
            "index": "groundwork-cards", "body": {"query": {"term": {"source_id": "s1"}}},
            "params": {"refresh": "true", "conflicts": "proceed"}}),
    ]  # fmt: skip


def test_given_throttling_when_calling_then_the_request_is_retried_with_backoff() -> None:
    throttled = exceptions.TransportError(429, "too_many_requests", {})
    client = RecordingClient({"count": [throttled, exceptions.ConnectionError("N/A", "reset", None),
                                        {"count": 4}]})  # fmt: skip
    waits: list[float] = []
    index = OpenSearchIndex(client, HashingEmbedder(), sleep=waits.append)

    assert index.count("c") == 4
    assert len(client.calls) == 3
    assert len(waits) == 2


def test_given_a_client_error_when_calling_then_it_is_not_retried() -> None:
    client = RecordingClient({"count": [exceptions.TransportError(400, "bad", {})]})

    with pytest.raises(exceptions.TransportError):
        adapter(client).count()
    assert len(client.calls) == 1


def test_given_a_partly_throttled_bulk_when_indexing_then_only_refused_items_are_resent() -> None:
    client = RecordingClient({"bulk": [
        {"errors": True, "items": [{"index": {"status": 201}}, {"index": {"status": 429}}]},
        {"errors": False, "items": [{"index": {"status": 201}}]},
    ]})  # fmt: skip

    adapter(client).upsert([card("a", "one"), card("b", "two")])

    first, second = (kwargs["body"] for name, kwargs in client.calls if name == "bulk")
    assert len(first) == 4
    assert second == first[2:]


def test_given_a_new_cluster_when_ensured_then_pipeline_and_index_are_created() -> None:
    client = RecordingClient()

    adapter(client).ensure()

    index_mapping = mapping(model=HashingEmbedder.model)
    assert client.calls == [
        ("perform_request", {"method": "PUT", "url": "/_search/pipeline/groundwork-hybrid",
                             "body": PIPELINE}),
        ("create", {"index": "groundwork-cards", "body": index_mapping}),
    ]  # fmt: skip


def test_given_a_concurrent_creator_when_ensured_then_an_existing_index_is_success() -> None:
    exists = exceptions.RequestError(400, "resource_already_exists_exception", {})
    client = RecordingClient({"create": [exists]})
    index = adapter(client)

    index.ensure()
    index.upsert([card("a", "one")])

    # Ensured once per process; an existing index gains the later fields.
    assert names(client) == [*SETUP, "put_mapping", CHECK, "bulk"]


def test_given_another_bad_request_when_ensured_then_it_is_raised() -> None:
    bad = exceptions.RequestError(400, "mapper_parsing_exception", {})

    with pytest.raises(exceptions.RequestError):
        adapter(RecordingClient({"create": [bad]})).ensure()


def test_given_a_reader_when_searching_and_counting_then_nothing_is_created() -> None:
    missing = exceptions.NotFoundError(404, "index_not_found_exception", {})
    client = RecordingClient(
        {"get_mapping": [missing, missing], "search": [missing, missing], "count": [missing]}
    )
    index = adapter(client)

    assert index.search("tax", WHERE, 5, quality="fast") == []
    assert index.search("tax", WHERE, 5, quality="precise") == []
    assert index.count() == 0
    assert names(client) == [CHECK, "search", CHECK, "search", "count"]


def test_given_opensearch_settings_when_the_retriever_is_built_then_no_request_is_sent(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from groundwork.retrieval.factory import get_retriever
    from groundwork.settings import Settings

    monkeypatch.setattr(
        "groundwork.embeddings.factory.get_lazy_embedder", lambda _: HashingEmbedder()
    )
    settings = Settings(retrieval="opensearch", opensearch_url="http://127.0.0.1:9",
                        opensearch_knn_engine="lucene", opensearch_shards=3,
                        opensearch_replicas=2)  # fmt: skip

    index = get_retriever(settings)

    assert isinstance(index, OpenSearchIndex)
    assert index.mapping == mapping(
        model=HashingEmbedder.model, engine="lucene", shards=3, replicas=2
    )
    assert index.mapping["settings"]["index"] == {
        "knn": True, "number_of_shards": 3, "number_of_replicas": 2}  # fmt: skip


def test_given_serverless_when_mapped_then_shards_and_replicas_are_left_to_it() -> None:
    index = OpenSearchIndex(RecordingClient(), HashingEmbedder(), serverless=True, replicas=2)

    assert index.mapping["settings"]["index"] == {"knn": True}


@pytest.mark.parametrize("service", ["es", "aoss"])
def test_given_no_opensearch_region_when_signing_then_the_functions_region_is_used(
    monkeypatch: pytest.MonkeyPatch, service: str
) -> None:
    from groundwork.retrieval.opensearch import connect

    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.setenv("AWS_REGION", "eu-west-3")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")

    def scope(region: str | None) -> str:
        import requests

        auth = connect("https://search.example", region=region, service=service)
        request = requests.Request("GET", "https://search.example/_count").prepare()
        header: str = auth.transport.kwargs["http_auth"](request).headers["Authorization"]
        return header.split("Credential=")[1].split(",")[0].split("/", 2)[2]

    assert scope(None) == f"eu-west-3/{service}/aws4_request"
    assert scope("ap-south-1") == f"ap-south-1/{service}/aws4_request"


def test_given_the_infra_files_when_read_then_they_are_what_the_adapter_sends() -> None:
    infra = REPO / "infra" / "opensearch"

    assert json.loads((infra / "cards-index.json").read_text()) == MAPPING
    assert json.loads((infra / "hybrid-pipeline.json").read_text()) == PIPELINE


@pytest.mark.parametrize(("index_exists", "found"), [(False, True), (True, False)])
def test_given_no_pipeline_when_searching_precisely_then_only_a_missing_index_means_empty(
    index_exists: bool, found: bool
) -> None:
    undefined = exceptions.RequestError(
        400, "illegal_argument_exception", {"error": {"reason": "Pipeline p is not defined"}}
    )
    client = RecordingClient({"search": [undefined], "exists": [index_exists]})

    if found:
        assert adapter(client).search("tax", WHERE, 5, quality="precise") == []
    else:
        with pytest.raises(exceptions.RequestError):
            adapter(client).search("tax", WHERE, 5, quality="precise")
    assert names(client) == [CHECK, "search", "exists"]


def test_given_an_index_from_before_languages_when_ensured_then_the_fields_are_added() -> None:
    exists = exceptions.RequestError(400, "resource_already_exists_exception", {})
    client = RecordingClient({"create": [exists]})

    adapter(client).ensure()

    assert names(client) == [*SETUP, "put_mapping"]
    later = {"language": {"type": "keyword"}, "char_start": {"type": "integer"},
             "page": {"type": "integer"}, "sentence_vectors": {"type": "binary"},
             "latent_terms": {"type": "binary"}}  # fmt: skip
    assert client.calls[-1] == (
        "put_mapping", {"index": "groundwork-cards", "body": {"properties": later}})  # fmt: skip


def test_given_a_language_when_searching_then_both_sides_are_filtered_to_it() -> None:
    client = RecordingClient()

    adapter(client).search("Steuer", WHERE.model_copy(update={"language": "de"}), 5)

    body = client.calls[1][1]["body"]
    keyword, knn = body["query"]["hybrid"]["queries"]
    assert {"term": {"language": "de"}} in keyword["bool"]["filter"]
    assert {"term": {"language": "de"}} in knn["knn"]["embedding"]["filter"]["bool"]["filter"]


def test_given_no_card_in_the_language_when_searching_then_the_scope_is_searched() -> None:
    stored = card("de", "Steuer", language="de").model_dump()
    german = {"hits": {"hits": [{"_score": 1.0, "_source": {"card": stored}}]}}
    none: dict[str, Any] = {"hits": {"hits": []}}
    found = RecordingClient({"search": [german]})
    missing = RecordingClient({"search": [none, none, german]})

    first = search_in_language(adapter(found), "tax", WHERE, 5, quality="fast", language="de")
    second = search_in_language(adapter(missing), "tax", WHERE, 5, quality="fast", language="de")

    assert [h.card.id for h in first] == [h.card.id for h in second] == ["de"]
    assert names(found) == [CHECK, "search"]
    # No German card shares a word: the German cards are searched by meaning, then all.
    keyword, meaning, everything = (c[1] for c in missing.calls if c[0] == "search")
    german_filters = [*FILTERS[:2], {"term": {"language": "de"}}, *FILTERS[2:]]
    assert keyword["body"]["query"]["bool"]["filter"] == german_filters
    assert meaning["params"] == {"search_pipeline": "groundwork-hybrid"}
    _, knn = meaning["body"]["query"]["hybrid"]["queries"]
    assert knn["knn"]["embedding"]["filter"]["bool"]["filter"] == german_filters
    assert everything["body"]["query"]["bool"]["filter"] == FILTERS


def test_given_no_card_in_the_questions_language_when_asked_then_searched_by_meaning() -> None:
    stored = card("en", "The tax is due in April.", language="en").model_dump()
    vector = [1.0] + [0.0] * (HashingEmbedder.model.dimension - 1)
    english = {
        "hits": {"hits": [{"_score": 0.9, "_source": {"card": stored, "embedding": vector}}]}
    }
    none: dict[str, Any] = {"hits": {"hits": []}}
    client = RecordingClient({"search": [none, english]})
    question = "Wann muss die Steuer bezahlt werden?"

    hits = search_in_language(adapter(client), question, WHERE, 5, quality="precise", language="de")

    assert [h.card.id for h in hits] == ["en"]
    _, meaning = (c[1] for c in client.calls if c[0] == "search")
    # A plain k-NN query, the cards' vectors returned: the cosines are taken here.
    assert "params" not in meaning
    assert meaning["body"]["size"] == DEPTH
    assert "embedding" in meaning["body"]["_source"]["includes"]
    assert meaning["body"]["query"]["knn"]["embedding"]["filter"]["bool"]["filter"] == FILTERS


def test_given_precise_when_cards_are_in_the_language_then_one_hybrid_search_in_it() -> None:
    stored = card("de", "Steuer", language="de").model_dump()
    german = {"hits": {"hits": [{"_score": 1.0, "_source": {"card": stored}}]}}
    client = RecordingClient({"search": [german]})

    search_in_language(adapter(client), "Steuer", WHERE, 5, quality="precise", language="de")

    (hybrid,) = (call[1] for call in client.calls if call[0] == "search")
    _, knn = hybrid["body"]["query"]["hybrid"]["queries"]
    assert {"term": {"language": "de"}} in knn["knn"]["embedding"]["filter"]["bool"]["filter"]
    assert hybrid["params"] == {"search_pipeline": "groundwork-hybrid"}


def test_given_an_index_built_by_another_model_when_searched_or_written_then_refused() -> None:
    other = {"name": "all-MiniLM-L6-v2", "dimension": 384}
    recorded = {"groundwork-cards": {"mappings": {"_meta": {"embedding_model": other}}}}
    legacy = {"groundwork-cards": {"mappings": {"properties": {}}}}
    client = RecordingClient({"get_mapping": [recorded, legacy]})
    index = adapter(client)

    with pytest.raises(IndexEmbedderMismatch) as refused:
        index.search("tax", WHERE, 5, quality="fast")
    with pytest.raises(IndexEmbedderMismatch):
        index.upsert([card("a", "one")])  # an index with no record holds MiniLM's vectors

    assert refused.value.status == 503
    assert refused.value.code == "index.embedder_mismatch"
    assert "groundwork reindex" in refused.value.message
    assert "search" not in names(client)
    assert "bulk" not in names(client)


def test_given_an_index_created_with_the_english_analyzer_when_searched_then_warned_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Given an index from before the words analyzer, when searched (twice, a minute apart),
    then one warning names the index and the command that recreates it, and the search runs."""
    built_by = {"name": HashingEmbedder.model.name, "dimension": HashingEmbedder.model.dimension}
    old = {"_meta": {"embedding_model": built_by},
           "properties": {"text": {"type": "text", "analyzer": "english"}}}  # fmt: skip
    client = RecordingClient({"get_mapping": [{"groundwork-cards": {"mappings": old}}] * 2})
    index = adapter(client)

    with caplog.at_level(logging.WARNING, logger="groundwork.retrieval.opensearch"):
        index.search("tax", WHERE, 5, quality="fast")
        index._checked_at = None  # as a minute later
        index.search("tax", WHERE, 5, quality="fast")

    warned = [r.getMessage() for r in caplog.records if "english analyzer" in r.getMessage()]
    assert len(warned) == 1
    assert "groundwork-cards" in warned[0]
    assert "groundwork reindex" in warned[0]
    assert names(client).count("search") == 2


@pytest.mark.parametrize(
    ("meta", "warned"),
    [({}, True), ({"words_analyzer": opensearch.WORDS_ANALYZER}, False)],
    ids=["words analyzer, no record: Korean whole", "the current record"],
)
def test_given_an_index_with_the_words_analyzer_when_searched_then_warned_unless_current(
    caplog: pytest.LogCaptureFixture, meta: dict[str, Any], warned: bool
) -> None:
    """Given an index whose fields use the words analyzer, recorded at the current version or
    not recorded (created before Korean was read as pairs), when searched, then only the
    unrecorded one is named in a warning."""
    built_by = {"name": HashingEmbedder.model.name, "dimension": HashingEmbedder.model.dimension}
    mappings = {"_meta": {"embedding_model": built_by, **meta},
                "properties": {"text": {"type": "text", "analyzer": "words"}}}  # fmt: skip
    client = RecordingClient({"get_mapping": [{"groundwork-cards": {"mappings": mappings}}]})
    index = adapter(client)

    with caplog.at_level(logging.WARNING, logger="groundwork.retrieval.opensearch"):
        index.search("tax", WHERE, 5, quality="fast")

    messages = [r.getMessage() for r in caplog.records if "groundwork reindex" in r.getMessage()]
    assert len(messages) == int(warned)
    if warned:
        assert "Korean words whole" in messages[0]


def test_given_an_index_being_reindexed_when_searched_then_refused_until_it_ends() -> None:
    built_by = {"name": HashingEmbedder.model.name, "dimension": HashingEmbedder.model.dimension}
    meta = {"embedding_model": built_by, "reindexing": True}
    client = RecordingClient({"get_mapping": [{"groundwork-cards": {"mappings": {"_meta": meta}}}]})
    index = adapter(client)

    with pytest.raises(IndexReindexing) as refused:
        index.search("tax", WHERE, 5, quality="fast")
    index.search("tax", WHERE, 5, quality="fast")

    assert refused.value.code == "index.reindexing"
    assert names(client) == [CHECK, CHECK, "search"]


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class HungClient(RecordingClient):
    """A node that accepts connections and never answers: each call waits out its timeout
    (the first, a search's check of which model built the index, too)."""

    def _answer(self, name: str, **kwargs: Any) -> Any:
        self.calls.append((name, kwargs))
        time.sleep(kwargs["request_timeout"])
        raise exceptions.ConnectionTimeout("TIMEOUT", "read timed out", None)


def test_given_a_hung_node_when_searching_then_unavailable_within_twice_the_timeout() -> None:
    client = HungClient()
    index = OpenSearchIndex(client, HashingEmbedder(), read_timeout_s=0.2)
    started = time.monotonic()

    with pytest.raises(RetrievalUnavailable):
        index.search("tax", WHERE, 3, quality="fast")

    assert time.monotonic() - started < 0.2 * opensearch.BUDGET_FACTOR + 0.3
    timeouts = [kwargs["request_timeout"] for _, kwargs in client.calls]
    assert 1 <= len(timeouts) <= 3
    assert sum(timeouts) <= 0.2 * opensearch.BUDGET_FACTOR + 0.01


def test_given_a_node_that_stopped_answering_then_calls_fail_fast_until_a_probe_answers() -> None:
    lost = exceptions.ConnectionError("N/A", "connection refused", None)
    answers = [lost] * opensearch.MAX_ATTEMPTS + [{"count": 4}, {"count": 5}]
    client = RecordingClient({"count": answers})
    clock = Clock()
    circuit = Circuit(RetrievalUnavailable, cooldown_s=2.0, clock=clock)
    index = OpenSearchIndex(client, HashingEmbedder(), sleep=lambda _: None, circuit=circuit)

    with pytest.raises(RetrievalUnavailable):
        index.count("c")
    tried = len(client.calls)
    clock.now += 0.5
    with pytest.raises(RetrievalUnavailable) as refused:
        index.count("c")
    fast_failures = len(client.calls) - tried
    clock.now += 1.6  # the cool-down is over: the next call is a probe, and it is answered

    assert tried == opensearch.MAX_ATTEMPTS
    assert fast_failures == 0
    assert refused.value.retry_after == pytest.approx(1.5)
    assert index.count("c") == 4
    assert index.count("c") == 5  # closed again


def test_given_throttling_that_never_ends_then_unavailable_but_the_circuit_stays_closed() -> None:
    throttled = exceptions.TransportError(429, "too_many_requests", {})
    client = RecordingClient({"count": [throttled] * opensearch.MAX_ATTEMPTS + [{"count": 2}]})
    index = OpenSearchIndex(client, HashingEmbedder(), sleep=lambda _: None)

    with pytest.raises(RetrievalUnavailable):
        index.count("c")

    assert index.count("c") == 2  # a node that answers "too busy" is up: no fast failures


def test_given_a_collection_when_its_sources_are_counted_then_a_paged_composite_aggregation() -> (
    None
):
    page = {"aggregations": {"sources": {"buckets": [{"key": {"source": "s1"}, "doc_count": 3}],
                                         "after_key": {"source": "s1"}}}}  # fmt: skip
    last = {"aggregations": {"sources": {"buckets": []}}}
    client = RecordingClient({"refresh": [{"_shards": {}}], "search": [page, last]})

    assert adapter(client).source_cards("c") == {"s1": 3}
    assert names(client) == ["refresh", "search", "search"]
    first, second = (kwargs["body"] for name, kwargs in client.calls if name == "search")
    assert first["query"] == {"bool": {"filter": [{"terms": {"collection": ["c"]}}]}}
    assert first["aggs"]["sources"]["composite"]["sources"] == [
        {"source": {"terms": {"field": "source_id"}}}
    ]
    assert second["aggs"]["sources"]["composite"]["after"] == {"source": "s1"}


def test_given_no_index_when_sources_are_counted_then_none() -> None:
    missing = exceptions.NotFoundError(404, "index_not_found_exception", {})
    client = RecordingClient({"refresh": [missing]})

    assert adapter(client).source_cards("c") == {}


def test_given_a_restricted_collection_when_searching_then_both_sides_keep_hidden_cards_out() -> (
    None
):
    client = RecordingClient()
    where = SearchFilter(
        collections=["c", "wiki"],
        restricted={"c": Restriction(tags=["public"], source_ids=["s9"])},
    )

    adapter(client).search("merger", where, 5)

    restricted = {
        "bool": {
            "should": [
                {"bool": {"must_not": [{"terms": {"collection": ["c"]}}]}},
                {"bool": {"filter": [{"term": {"collection": "c"}}],
                          "should": [{"terms": {"tags": ["public"]}},
                                     {"terms": {"source_id": ["s9"]}}],
                          "minimum_should_match": 1}},
            ],
            "minimum_should_match": 1,
        }
    }  # fmt: skip
    (body,) = [call["body"] for name, call in client.calls if name == "search"]
    keyword, knn = body["query"]["hybrid"]["queries"]
    assert keyword["bool"]["filter"] == [{"terms": {"collection": ["c", "wiki"]}}, restricted]
    assert knn["knn"]["embedding"]["filter"]["bool"]["filter"] == keyword["bool"]["filter"]


def test_given_a_filter_when_counting_sources_then_the_aggregation_runs_under_it_unrefreshed() -> (
    None
):
    last = {"aggregations": {"sources": {"buckets": [{"key": {"source": "s1"}, "doc_count": 3}]}}}
    client = RecordingClient({"search": [last]})

    counts = adapter(client).source_counts(SearchFilter(collections=["c"], tags=["t"]))

    # A read (the API's listing): no refresh, which needs more than read rights.
    assert counts == {"s1": 3}
    assert names(client) == ["search"]
    assert client.calls[0][1]["body"]["query"] == {
        "bool": {"filter": [{"terms": {"collection": ["c"]}}, {"terms": {"tags": ["t"]}}]}
    }
