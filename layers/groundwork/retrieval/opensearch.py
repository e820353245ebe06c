"""OpenSearch (managed domains and Serverless collections) as the passage index.

The same cards, filters and operating points as the embedded index: ``fast`` is one BM25
query, ``precise`` a ``hybrid`` query (BM25 and k-NN with the filter inside the ``knn``
clause, so that ``k`` results come back) whose scores the search pipeline normalises and
combines. The index mapping and the pipeline are the files under ``infra/opensearch/``.

Serverless vector collections accept no document ids on writes, so there a card is replaced
by deleting its documents (found by ``card_id``) and indexing it again, and a source is
deleted by searching its documents' ids; both see only what the collection has refreshed
(about a minute). opensearch-py is an optional extra (``pip install groundwork[opensearch]``),
imported when the index is built.
"""

from __future__ import annotations

import json
import logging
import random
import time
from typing import TYPE_CHECKING, Any

from groundwork.domain.cards import Card, Hit
from groundwork.retrieval.base import Quality, Retriever, SearchFilter, day

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    import numpy as np
    import numpy.typing as npt

    from groundwork.embeddings.base import Embedder

logger = logging.getLogger(__name__)

#: Candidates each sub-query of a hybrid search brings, as in the embedded index.
PRECISE_POOL = 100
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
MAX_ATTEMPTS = 5
#: The index mapping and the search pipeline; infra/opensearch/ holds the same as JSON.
MAPPING: dict[str, Any] = {
    "settings": {"index": {"knn": True, "number_of_shards": 1}},
    "mappings": {
        "dynamic": "strict",
        "properties": {
            "card_id": {"type": "keyword"},
            "collection": {"type": "keyword"},
            "source_id": {"type": "keyword"},
            "tags": {"type": "keyword"},
            "language": {"type": "keyword"},
            "period_start": {"type": "keyword"},
            "period_end": {"type": "keyword"},
            "text": {"type": "text", "analyzer": "english"},
            "heading": {"type": "text", "analyzer": "english"},
            "title": {"type": "text", "analyzer": "english"},
            "embedding": {
                "type": "knn_vector",
                "dimension": 384,
                "method": {
                    "name": "hnsw",
                    "engine": "faiss",
                    "space_type": "innerproduct",
                    "parameters": {"m": 16, "ef_construction": 128},
                },
            },
            "card": {"type": "object", "enabled": False},
        },
    },
}
PIPELINE: dict[str, Any] = {
    "description": "Groundwork hybrid search: min-max normalised BM25 and k-NN, weighted mean",
    "phase_results_processors": [
        {
            "normalization-processor": {
                "normalization": {"technique": "min_max"},
                "combination": {
                    "technique": "arithmetic_mean",
                    "parameters": {"weights": [0.5, 0.5]},
                },
            }
        }
    ],
}
_FIELDS = ["text^10", "heading^4", "title^2"]


class OpenSearchIndex(Retriever):
    """Cards in one OpenSearch index; ``client`` is an ``opensearchpy.OpenSearch``."""

    def __init__(
        self,
        client: Any,
        embedder: Embedder,
        *,
        index: str = "groundwork-cards",
        pipeline: str = "groundwork-hybrid",
        serverless: bool = False,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self._client = client
        self._embedder = embedder
        self._index = index
        self._pipeline = pipeline
        self._serverless = serverless
        self._sleep = sleep

    def ensure(self) -> None:
        """Create the index and the search pipeline when they are missing."""
        if not self._call(self._client.indices.exists, index=self._index):
            self._call(self._client.indices.create, index=self._index, body=MAPPING)
        else:  # an index created before cards had a language gains the field (strict mapping)
            language = {"language": MAPPING["mappings"]["properties"]["language"]}
            self._call(
                self._client.indices.put_mapping, index=self._index, body={"properties": language}
            )
        self._call(
            self._client.transport.perform_request,
            "PUT",
            f"/_search/pipeline/{self._pipeline}",
            body=PIPELINE,
        )

    def upsert(self, cards: Sequence[Card]) -> None:
        if not cards:
            return
        vectors = self._embedder.embed([_embedded_text(card) for card in cards])
        if self._serverless:
            self._delete_ids(self._ids({"terms": {"card_id": [card.id for card in cards]}}))
        self._index_cards(cards, vectors)

    def replace_source(
        self,
        source_id: str,
        cards: Sequence[Card],
        *,
        progress: Callable[[int], object] | None = None,
    ) -> None:
        # Write, then delete what the new version no longer holds: there is no transaction
        # across documents, and a crash in between leaves stale cards, never none.
        old = self._ids({"term": {"source_id": source_id}})
        if cards:
            self._index_cards(cards, self._embedder.embed([_embedded_text(c) for c in cards]))
        # Serverless ids are the cluster's own, so every old one is stale; elsewhere a card's
        # id is its _id, and the new version's cards were overwritten in place.
        kept = set() if self._serverless else {card.id for card in cards}
        self._delete_ids([i for i in old if i not in kept])
        if progress:
            progress(len(cards))

    def _index_cards(self, cards: Sequence[Card], vectors: npt.NDArray[np.float32]) -> None:
        actions: list[dict[str, Any]] = []
        for card, vector in zip(cards, vectors, strict=True):
            action: dict[str, Any] = {"_index": self._index}
            if not self._serverless:
                action["_id"] = card.id  # a stable id: writing a card again replaces it
            actions += [{"index": action}, document(card, [float(x) for x in vector])]
        self._bulk(actions)

    def delete_source(self, source_id: str) -> int:
        query = {"term": {"source_id": source_id}}
        if self._serverless:
            ids = self._ids(query)
            self._delete_ids(ids)
            return len(ids)
        response = self._call(
            self._client.delete_by_query,
            index=self._index,
            body={"query": query},
            params={"refresh": "true", "conflicts": "proceed"},
        )
        return int(response.get("deleted", 0))

    def search(
        self, query: str, where: SearchFilter, k: int, *, quality: Quality = "precise"
    ) -> list[Hit]:
        body, params = self.search_request(query, where, k, quality)
        response = self._call(self._client.search, index=self._index, body=body, params=params)
        return [
            Hit(card=Card.model_validate(hit["_source"]["card"]), score=float(hit["_score"]))
            for hit in response["hits"]["hits"]
        ]

    def search_request(
        self, query: str, where: SearchFilter, k: int, quality: Quality
    ) -> tuple[dict[str, Any], dict[str, str]]:
        """The body and URL parameters of a search, as sent."""
        filters = filter_clauses(where)
        keyword: dict[str, Any] = {
            "bool": {
                "must": [{"multi_match": {"query": query, "fields": _FIELDS}}],
                "filter": filters,
            }
        }
        source = {"includes": ["card"]}
        if quality == "fast":
            return {"size": k, "_source": source, "query": keyword}, {}
        knn: dict[str, Any] = {
            "vector": [float(x) for x in self._embedder.embed([query])[0]],
            "k": max(PRECISE_POOL, k),
        }
        if filters:
            knn["filter"] = {"bool": {"filter": filters}}  # efficient filtering, inside k-NN
        body = {
            "size": k,
            "_source": source,
            "query": {"hybrid": {"queries": [keyword, {"knn": {"embedding": knn}}]}},
        }
        return body, {"search_pipeline": self._pipeline}

    def count(self, collection: str | None = None) -> int:
        query = {"term": {"collection": collection}} if collection else {"match_all": {}}
        response = self._call(self._client.count, index=self._index, body={"query": query})
        return int(response["count"])

    def _ids(self, query: dict[str, Any]) -> list[str]:
        ids: list[str] = []
        after: list[Any] | None = None
        while True:
            body: dict[str, Any] = {
                "size": 1000,
                "_source": False,
                "query": query,
                "sort": [{"card_id": "asc"}],
            }
            if after is not None:
                body["search_after"] = after
            hits = self._call(self._client.search, index=self._index, body=body)["hits"]["hits"]
            ids += [hit["_id"] for hit in hits]
            if len(hits) < body["size"]:
                return ids
            after = hits[-1]["sort"]

    def _delete_ids(self, ids: list[str]) -> None:
        if ids:
            self._bulk([{"delete": {"_index": self._index, "_id": i}} for i in ids])

    def _bulk(self, actions: list[dict[str, Any]]) -> None:
        """Send ``actions``; items refused for load (429, 5xx) are sent again with backoff."""
        for attempt in range(MAX_ATTEMPTS):
            response = self._call(self._client.bulk, body=actions)
            if not response.get("errors"):
                return
            retry: list[dict[str, Any]] = []
            pairs = _pairs(actions)
            for (action, source), item in zip(pairs, response["items"], strict=True):
                result = next(iter(item.values()))
                status = int(result.get("status", 200))
                if status in RETRY_STATUSES:
                    retry += [action] if source is None else [action, source]
                elif status >= 300 and not (status == 404 and "delete" in action):
                    raise RuntimeError(f"OpenSearch refused a card: {result.get('error')}")
            if not retry:
                return
            actions = retry
            self._sleep(_backoff(attempt))
        raise RuntimeError(f"OpenSearch kept refusing {len(actions)} bulk lines")

    def _call(self, method: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """Call the client, retrying throttling (429), server errors and lost connections."""
        from opensearchpy.exceptions import ConnectionError as LostConnection
        from opensearchpy.exceptions import TransportError

        for attempt in range(MAX_ATTEMPTS):
            try:
                return method(*args, **kwargs)
            except TransportError as error:
                retriable = isinstance(error, LostConnection) or error.status_code in RETRY_STATUSES
                if not retriable or attempt == MAX_ATTEMPTS - 1:
                    raise
                logger.warning("OpenSearch %s, retrying", error.status_code)
                self._sleep(_backoff(attempt))
        raise AssertionError("unreachable")


def document(card: Card, vector: list[float]) -> dict[str, Any]:
    """The indexed document of a card: searchable fields, filters, vector and the card."""
    start = card.period_start or card.period_end
    end = card.period_end or card.period_start
    return {
        "card_id": card.id,
        "collection": card.collection,
        "source_id": card.source_id,
        "tags": card.tags,
        "language": card.language,
        "period_start": day(start) if start else None,
        "period_end": day(end, end=True) if end else None,
        "text": card.text,
        "heading": " ".join(card.heading_path),
        "title": card.title or "",
        "embedding": vector,
        "card": json.loads(card.model_dump_json()),
    }


def filter_clauses(where: SearchFilter) -> list[dict[str, Any]]:
    """The filter of a search as query clauses; the same rules as the embedded index."""
    clauses: list[dict[str, Any]] = []
    for field, values in (
        ("collection", where.collections or None),
        ("source_id", where.source_ids),
        ("card_id", where.card_ids),
        ("tags", where.tags),
    ):
        if values is not None:
            clauses.append({"terms": {field: values}})
    if where.language is not None:
        clauses.append({"term": {"language": where.language}})
    for field, bound, value in (
        ("period_start", "lte", day(where.period_end, end=True) if where.period_end else None),
        ("period_end", "gte", day(where.period_start) if where.period_start else None),
    ):
        if value is not None:  # overlapping periods; undated cards are timeless and kept
            clauses.append(
                {
                    "bool": {
                        "should": [
                            {"range": {field: {bound: value}}},
                            {"bool": {"must_not": [{"exists": {"field": field}}]}},
                        ],
                        "minimum_should_match": 1,
                    }
                }
            )
    return clauses


def connect(url: str, *, region: str | None, service: str | None) -> Any:
    """An opensearch-py client; with ``service`` ("es" or "aoss"), requests are SigV4-signed."""
    from opensearchpy import AWSV4SignerAuth, OpenSearch, RequestsHttpConnection

    auth = None
    if service:
        import boto3

        credentials = boto3.Session().get_credentials()
        auth = AWSV4SignerAuth(credentials, region or "us-east-1", service)
    return OpenSearch(
        hosts=[url],
        http_auth=auth,
        use_ssl=url.startswith("https"),
        verify_certs=url.startswith("https"),
        connection_class=RequestsHttpConnection,
        timeout=10,
        max_retries=0,  # retries, with backoff, are ours
    )


def _pairs(actions: list[dict[str, Any]]) -> list[tuple[dict[str, Any], dict[str, Any] | None]]:
    pairs: list[tuple[dict[str, Any], dict[str, Any] | None]] = []
    i = 0
    while i < len(actions):
        if "delete" in actions[i]:
            pairs.append((actions[i], None))
            i += 1
        else:
            pairs.append((actions[i], actions[i + 1]))
            i += 2
    return pairs


def _backoff(attempt: int) -> float:
    """Exponential backoff with full jitter: up to 0.2 s, 0.4 s, 0.8 s, …"""
    return float(random.uniform(0, 0.2 * 2**attempt))


def _embedded_text(card: Card) -> str:
    from groundwork.retrieval.embedded import passage_text

    return passage_text(card)
