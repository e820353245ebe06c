"""OpenSearch (managed domains and Serverless collections) as the passage index.

The same cards, filters and operating points as the embedded index: ``fast`` is one BM25
query, ``precise`` a ``hybrid`` query (BM25 and k-NN with the filter inside the ``knn``
clause, so that ``k`` results come back) whose scores the search pipeline normalises and
combines. The index mapping and the pipeline are the files under ``infra/opensearch/``.

Only writes create them (``ensure``, once per process, before the first write; creation by a
concurrent writer counts as success), so functions that only search need no write rights and
a search before any write finds nothing. Writes go in ``_bulk`` requests of at most
``MAX_BULK_BYTES``; a re-ingested source's new cards are written before its stale ones are
deleted, so a search never finds the source missing.

Serverless vector collections accept no document ids on writes, so there the documents a
write replaces are found first (by ``card_id`` or ``source_id``), the new ones indexed, and
then the old ones deleted by their ids; the search sees only what the collection has
refreshed (about a minute). opensearch-py is an optional extra (``pip install
groundwork[opensearch]``), imported when the index is built.

The index's mapping records the embedding model of its vectors (``_meta``), and the model of
the sentence vectors where another one built them; a search or write with other models is
refused (:class:`IndexEmbedderMismatch`) until ``reindex`` re-embeds every card. Each
document also carries its sentences' vectors and its latent terms, not indexed
(``sentence_vectors`` and ``latent_terms``, see ``retrieval.sentence_vectors`` and
``retrieval.latent_terms``).
"""

from __future__ import annotations

import base64
import contextlib
import json
import logging
import os
import random
import shutil
import time
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from groundwork.circuit import Circuit
from groundwork.domain.cards import Card, Hit
from groundwork.embeddings.base import EmbeddingModel
from groundwork.embeddings.models import E5_SMALL, MINILM
from groundwork.retrieval.base import (
    KEYWORD_WEIGHT,
    IndexEmbedderMismatch,
    IndexReindexing,
    Quality,
    RetrievalUnavailable,
    Retriever,
    SearchFilter,
    day,
)
from groundwork.retrieval.latent_terms import card_terms
from groundwork.retrieval.rerank import RERANK_DEPTH, rerank
from groundwork.retrieval.sentence_vectors import embed_sentences

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Sequence

    import numpy.typing as npt

    from groundwork.embeddings.base import Embedder

logger = logging.getLogger(__name__)

#: Candidates each sub-query of a hybrid search brings, as in the embedded index.
PRECISE_POOL = 100
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
MAX_ATTEMPTS = 5
#: Seconds a search or a count may wait for its answer, per attempt (docs/retrieval.md): a
#: healthy node answers in tens of milliseconds, a loaded one within a second or two.
READ_TIMEOUT_S = 3.0
#: Seconds a write (``_bulk`` of up to 5 MiB, ``_delete_by_query``) may wait, per attempt.
WRITE_TIMEOUT_S = 30.0
#: A call is retried only within twice its timeout since its first attempt, so a hung node
#: is reported after that, not after every attempt's timeout.
BUDGET_FACTOR = 2.0
#: The largest ``_bulk`` body sent: half the 10 MiB request limit of the smallest domains.
MAX_BULK_BYTES = 5 * 1024 * 1024
#: Cards embedded per batch of a reindex: each batch is kept on disk once embedded.
REINDEX_BATCH = 256
#: Seconds a process trusts the model its index recorded before asking again (a reindex by
#: another process changes it).
CHECK_INTERVAL = 60.0
#: faiss: production (the only engine of Serverless vector collections); lucene: pure Java,
#: for nodes without the faiss native libraries (the local node of scripts/services.sh).
KnnEngine = Literal["faiss", "lucene"]


# The words of the BM25 fields: OpenSearch's ``english`` analyzer rebuilt, with Chinese,
# Japanese and Korean read as character pairs (``cjk_bigram``, as ``text.terms`` reads them for
# the embedded index) where ``english`` would index each ideograph alone and a Korean word with
# its particles whole.
_ANALYSIS: dict[str, Any] = {
    "filter": {
        "english_possessive": {"type": "stemmer", "language": "possessive_english"},
        "english_stop": {"type": "stop", "stopwords": "_english_"},
        "english_stemmer": {"type": "stemmer", "language": "english"},
        "character_pairs": {"type": "cjk_bigram", "ignored_scripts": []},
    },
    "analyzer": {
        "words": {
            "tokenizer": "standard",
            "filter": [
                "english_possessive", "lowercase", "cjk_width", "character_pairs",
                "english_stop", "english_stemmer",
            ],
        },
    },
}  # fmt: skip


def mapping(
    *,
    model: EmbeddingModel = E5_SMALL,
    sentences: EmbeddingModel | None = None,
    engine: KnnEngine = "faiss",
    shards: int | None = 1,
    replicas: int | None = None,
    reindexing: bool = False,
) -> dict[str, Any]:
    """The index of cards, recording the model of its vectors, and of its sentence vectors
    (``sentences``; ``None``: the same), and, while ``reindex`` writes it, that it is not
    complete; ``None`` shards or replicas leave the cluster's default."""
    index: dict[str, Any] = {"knn": True}
    if shards is not None:
        index["number_of_shards"] = shards
    if replicas is not None:
        index["number_of_replicas"] = replicas
    return {
        "settings": {"index": index, "analysis": _ANALYSIS},
        "mappings": {
            "dynamic": "strict",
            "_meta": _meta(model, sentences, reindexing=reindexing),
            "properties": {
                "card_id": {"type": "keyword"},
                "write_id": {"type": "keyword"},
                "collection": {"type": "keyword"},
                "source_id": {"type": "keyword"},
                "tags": {"type": "keyword"},
                "language": {"type": "keyword"},
                "period_start": {"type": "keyword"},
                "period_end": {"type": "keyword"},
                "char_start": {"type": "integer"},
                "page": {"type": "integer"},
                "text": {"type": "text", "analyzer": "words"},
                "heading": {"type": "text", "analyzer": "words"},
                "title": {"type": "text", "analyzer": "words"},
                "embedding": {
                    "type": "knn_vector",
                    "dimension": model.dimension,
                    "method": {
                        "name": "hnsw",
                        "engine": engine,
                        "space_type": "innerproduct",
                        "parameters": {"m": 16, "ef_construction": 128},
                    },
                },
                "card": {"type": "object", "enabled": False},
                "sentence_vectors": {"type": "binary"},
                "latent_terms": {"type": "binary"},
            },
        },
    }


#: The version of the ``words`` analyzer an index records (``_meta.words_analyzer``, which
#: OpenSearch cannot change in place): 2 reads Korean as character pairs too. An index with no
#: record has version 1 if its fields use ``words`` (Chinese and Japanese as pairs), else 0
#: (the ``english`` analyzer).
WORDS_ANALYZER = 2


def _meta(
    model: EmbeddingModel, sentences: EmbeddingModel | None = None, *, reindexing: bool = False
) -> dict[str, Any]:
    meta: dict[str, Any] = {"embedding_model": _recorded(model), "words_analyzer": WORDS_ANALYZER}
    if sentences is not None and sentences != model:
        # Absent, the cards' model built them too (an index has always recorded it so).
        meta["sentence_model"] = _recorded(sentences)
    if reindexing:
        meta["reindexing"] = True
    return meta


def _recorded(model: EmbeddingModel) -> dict[str, Any]:
    return {"name": model.name, "dimension": model.dimension}


#: The index mapping and the search pipeline; infra/opensearch/ holds the same as JSON.
MAPPING = mapping()
PIPELINE: dict[str, Any] = {
    "description": "Groundwork hybrid search: min-max normalised BM25 and k-NN, weighted mean",
    "phase_results_processors": [
        {
            "normalization-processor": {
                "normalization": {"technique": "min_max"},
                "combination": {
                    "technique": "arithmetic_mean",
                    "parameters": {"weights": [KEYWORD_WEIGHT, 1 - KEYWORD_WEIGHT]},
                },
            }
        }
    ],
}
#: The words' fields and their weights, as the embedded index's BM25 columns; their scores are
#: added up (``most_fields``), as FTS5 counts a word in any column, so a question naming a
#: section's author (in ``title``) as well as its subject (in ``text``) ranks it above one
#: that has the subject alone.
_FIELDS = ["text^10", "heading^4", "title^2"]
_SOURCE = {"includes": ["card", "sentence_vectors"]}
#: Fields added to the mapping after the first release; ``ensure`` adds them to an older index.
_LATER_FIELDS = ("language", "char_start", "page", "sentence_vectors", "latent_terms")


class OpenSearchIndex(Retriever):
    """Cards in one OpenSearch index; ``client`` is an ``opensearchpy.OpenSearch``.

    ``embedder`` embeds the cards and the questions searched for; ``sentences`` (by default
    the same) the sentence vectors, which answers compare with their question embedded by it.
    ``refresh`` makes each write wait until it is searchable (``refresh=wait_for``), for tests
    and local use; managed domains make writes searchable within a second anyway. With
    ``terms`` each card's latent terms are written (``GROUNDWORK_LATENT_TERMS``).
    """

    def __init__(
        self,
        client: Any,
        embedder: Embedder,
        *,
        sentences: Embedder | None = None,
        index: str = "groundwork-cards",
        pipeline: str = "groundwork-hybrid",
        serverless: bool = False,
        engine: KnnEngine = "faiss",
        shards: int = 1,
        replicas: int | None = None,
        refresh: bool = False,
        sleep: Callable[[float], None] = time.sleep,
        read_timeout_s: float = READ_TIMEOUT_S,
        circuit: Circuit | None = None,
        reindex_dir: Path | None = None,
        terms: bool = False,
    ) -> None:
        self._client = client
        self._embedder = embedder
        self._sentences = sentences or embedder
        self._terms_by = embedder if terms else None
        self._index = index
        self._pipeline = pipeline
        self._serverless = serverless
        # Serverless places shards and replicas itself and refuses those settings.
        self._layout: dict[str, Any] = {
            "engine": engine,
            "shards": None if serverless else shards,
            "replicas": None if serverless else replicas,
        }
        self.mapping = self._mapping()
        self._write_params = {"refresh": "wait_for"} if refresh else {}
        self._sleep = sleep
        self._read_timeout_s = read_timeout_s
        self._circuit = circuit or Circuit(RetrievalUnavailable)
        self._ensured = False
        self._checked_at: float | None = None
        self._warned_unpaired = False
        self._reindex_dir = reindex_dir or Path(".groundwork") / "reindex"

    def ensure(self) -> None:
        """Create the search pipeline and the index unless they exist; idempotent.

        The pipeline goes first, so an index that exists has its pipeline. An index that a
        concurrent writer created in between is success, not an error.
        """
        from opensearchpy.exceptions import RequestError

        self._call(
            self._client.transport.perform_request,
            "PUT",
            f"/_search/pipeline/{self._pipeline}",
            body=PIPELINE,
        )
        try:
            self._call(self._client.indices.create, index=self._index, body=self.mapping)
        except RequestError as error:
            if error.error != "resource_already_exists_exception":
                raise
            # An index created before cards had these fields (a language, where they are in
            # their document, their sentences' vectors) gains them (strict mapping); its
            # recorded model stays its own.
            properties = self.mapping["mappings"]["properties"]
            later = {name: properties[name] for name in _LATER_FIELDS}
            self._call(
                self._client.indices.put_mapping, index=self._index, body={"properties": later}
            )
        self._ensured = True

    def _mapping(self, *, reindexing: bool = False) -> dict[str, Any]:
        return mapping(
            model=self._embedder.model,
            sentences=self._sentences.model,
            reindexing=reindexing,
            **self._layout,
        )

    def built_by(self) -> EmbeddingModel | None:
        """The embedding model the index's vectors were built by (None: no index yet)."""
        recorded = self._built_by()
        return recorded[0] if recorded else None

    def _built_by(self) -> tuple[EmbeddingModel, EmbeddingModel] | None:
        """The models of the cards' and of the sentences' vectors (None: no index yet)."""
        from opensearchpy.exceptions import NotFoundError

        try:
            response = self._call(
                self._client.indices.get_mapping, timeout_s=self._read_timeout_s, index=self._index
            )
        except NotFoundError:
            return None
        mappings = next(iter(response.values()))["mappings"]
        self._warn_if_unpaired(mappings)
        meta = mappings.get("_meta", {})
        recorded = meta.get("embedding_model")
        if meta.get("reindexing"):
            raise IndexReindexing()
        # An index from before the record holds MiniLM's vectors, the only model there was.
        cards = EmbeddingModel(**recorded) if recorded else MINILM
        sentences = meta.get("sentence_model")
        return cards, EmbeddingModel(**sentences) if sentences else cards

    def _warn_if_unpaired(self, mappings: dict[str, Any]) -> None:
        """Once a process: an index created with an earlier analyzer, which OpenSearch cannot
        change in place, reads some Chinese, Japanese or Korean words less well than a new one."""
        version = mappings.get("_meta", {}).get("words_analyzer")
        if version is None:
            analyzer = mappings.get("properties", {}).get("text", {}).get("analyzer")
            version = 1 if analyzer == "words" else 0
        if version >= WORDS_ANALYZER or self._warned_unpaired:
            return
        self._warned_unpaired = True
        reads = (
            "Korean words whole, with their particles"
            if version == 1
            else "Chinese and Japanese one character at a time, and Korean words whole"
        )
        logger.warning(
            "index %s was created with %s: its keyword search reads %s; `groundwork reindex` "
            "creates it anew with character pairs",
            self._index,
            "an earlier words analyzer" if version == 1 else "the english analyzer",
            reads,
        )

    def _check(self) -> None:
        """Refuse to mix two models' vectors; once it passed, asked again after a minute."""
        now = time.monotonic()
        if self._checked_at is not None and now - self._checked_at < CHECK_INTERVAL:
            return
        recorded = self._built_by()
        if recorded is not None:
            configured = (self._embedder.model, self._sentences.model)
            for built_by, model in zip(recorded, configured, strict=True):
                if built_by != model:
                    raise IndexEmbedderMismatch(built_by, model)
        self._checked_at = now if recorded is not None else None

    def reindex(self, *, progress: Callable[[int, int], object] | None = None) -> int:
        """Every card embedded again by the configured model, and the index rebuilt with it.

        OpenSearch cannot change a vector field's dimension, so the index is written anew,
        through files under ``reindex_dir`` that make a killed run go on where it stopped:
        the cards are read out once (``cards.jsonl``, never again: the index may be half
        rebuilt after that), embedded a batch at a time (each batch kept, ``batch-N.npz``),
        then the index is deleted, created with the new model's mapping marked
        ``reindexing`` (searches are refused meanwhile), written, and marked complete. A run
        killed while writing writes it all again. The files go once the index is complete.
        """
        work = self._reindex_dir / self._index
        work.mkdir(parents=True, exist_ok=True)
        cards_file = work / "cards.jsonl"
        if not cards_file.exists():
            partial = work / "cards.jsonl.part"
            with partial.open("w") as out:
                for card in self._all_cards():
                    out.write(card.model_dump_json() + "\n")
            partial.replace(cards_file)
        cards = [Card.model_validate_json(line) for line in cards_file.open()]
        batches = range(0, len(cards), REINDEX_BATCH)
        for n, start in enumerate(batches):
            path = work / f"batch-{n}.npz"
            if not path.exists():
                batch = cards[start : start + REINDEX_BATCH]
                vectors = self._embedder.embed(
                    [_embedded_text(card) for card in batch], role="passage"
                )
                sentences = embed_sentences(batch, self._sentences)
                terms = card_terms(batch, self._terms_by)
                partial = work / f"batch-{n}.part.npz"
                sentences_joined, sentences_ends = _joined(sentences)
                terms_joined, terms_ends = _joined(terms)
                np.savez(
                    partial,
                    vectors=vectors,
                    sentences=sentences_joined,
                    ends=sentences_ends,
                    terms=terms_joined,
                    terms_ends=terms_ends,
                )
                partial.replace(path)
            if progress:
                progress(min(start + REINDEX_BATCH, len(cards)), len(cards))
        self._rebuild(cards, work, len(batches))
        shutil.rmtree(work)
        return len(cards)

    def _rebuild(self, cards: list[Card], work: Path, batches: int) -> None:
        from opensearchpy.exceptions import NotFoundError

        with contextlib.suppress(NotFoundError):
            self._call(self._client.indices.delete, index=self._index)
        self._ensured = False
        self.mapping = self._mapping(reindexing=True)
        self.ensure()
        for n in range(batches):
            with np.load(work / f"batch-{n}.npz") as saved:
                embedded = (
                    saved["vectors"],
                    _split(saved["sentences"], saved["ends"]),
                    # A batch saved by a run from before cards had terms has none.
                    _split(saved["terms"], saved["terms_ends"])
                    if "terms" in saved
                    else [b""] * len(saved["vectors"]),
                )
            batch = cards[n * REINDEX_BATCH : (n + 1) * REINDEX_BATCH]
            self._bulk(self._index_actions(batch, embedded))
        self._call(
            self._client.indices.put_mapping,
            index=self._index,
            body={"_meta": _meta(self._embedder.model, self._sentences.model)},
        )
        self.mapping = self._mapping()
        self._checked_at = None

    def _all_cards(self) -> Iterator[Card]:
        after: list[Any] | None = None
        while True:
            body: dict[str, Any] = {
                "size": 500,
                "_source": {"includes": ["card"]},
                "query": {"match_all": {}},
                "sort": [{"write_id": "asc"}],
            }
            if after is not None:
                body["search_after"] = after
            response = self._read(self._client.search, index=self._index, body=body)
            hits = response["hits"]["hits"] if response else []
            for hit in hits:
                yield Card.model_validate(hit["_source"]["card"])
            if len(hits) < body["size"]:
                return
            after = hits[-1]["sort"]

    def upsert(self, cards: Sequence[Card]) -> None:
        if not cards:
            return
        self._ready_to_write()
        self._check()
        stale: list[str] = []
        if self._serverless:
            stale = self._ids({"terms": {"card_id": [card.id for card in cards]}})
        self._bulk(self._index_actions(cards))
        self._delete_ids(stale)

    def replace_source(
        self,
        source_id: str,
        cards: Sequence[Card],
        *,
        progress: Callable[[int], object] | None = None,
    ) -> None:
        """The new cards are written first; then the source's cards not among them go."""
        self._ready_to_write()
        self._check()
        query = {"term": {"source_id": source_id}}
        if self._serverless:
            stale = self._ids(query)
            if cards:
                self._bulk(self._index_actions(cards))
            self._delete_ids(stale)
            if progress:
                progress(len(cards))
            return
        if cards:
            self._bulk(self._index_actions(cards))
        if progress:
            progress(len(cards))
        self._refresh()
        self._call(
            self._client.delete_by_query,
            index=self._index,
            body={
                "query": {
                    "bool": {
                        "filter": [query],
                        "must_not": [{"terms": {"card_id": [card.id for card in cards]}}],
                    }
                }
            },
            params={"refresh": "true", "conflicts": "proceed"},
        )

    def delete_source(self, source_id: str) -> int:
        self._ready_to_write()
        query = {"term": {"source_id": source_id}}
        if self._serverless:
            ids = self._ids(query)
            self._delete_ids(ids)
            return len(ids)
        self._refresh()
        response = self._call(
            self._client.delete_by_query,
            index=self._index,
            body={"query": query},
            params={"refresh": "true", "conflicts": "proceed"},
        )
        return int(response.get("deleted", 0))

    def search(
        self,
        query: str,
        where: SearchFilter,
        k: int,
        *,
        quality: Quality = "precise",
        lexical: bool = True,
    ) -> list[Hit]:
        self._check()
        if not lexical:
            return self._by_meaning(query, where, k)
        question = None if quality == "fast" else self._embedder.embed([query], role="query")[0]
        body, params = self.search_request(query, where, k, question)
        response = self._read(self._client.search, index=self._index, body=body, params=params)
        hits = [] if response is None else [_hit(raw) for raw in response["hits"]["hits"]]
        if question is None:
            return hits
        # The hybrid's top, reranked here as the embedded index reranks its own.
        same_model = self._sentences.model == self._embedder.model
        return rerank(query, hits, question if same_model else None)[:k]

    def _by_meaning(self, query: str, where: SearchFilter, k: int) -> list[Hit]:
        """The nearest cards by a plain k-NN query, with their vectors: their cosines are taken
        here, so both indexes rank them again alike (``retrieval.meaning``)."""
        from groundwork.retrieval.meaning import DEPTH, rank_nearest

        question = self._embedder.embed([query], role="query")[0]
        body = self.knn_request(question, filter_clauses(where), max(DEPTH, k))
        response = self._read(self._client.search, index=self._index, body=body)
        if response is None:
            return []
        nearest = []
        for raw in response["hits"]["hits"]:
            hit = _hit(raw)
            vector = np.asarray(raw["_source"]["embedding"], dtype="<f4")
            hit.score = float(vector @ question)
            hit.vector = vector.tobytes()
            nearest.append(hit)
        return rank_nearest(self._embedder, self._sentences, query, question, nearest, k)

    def search_request(
        self, query: str, where: SearchFilter, k: int, question: npt.NDArray[np.float32] | None
    ) -> tuple[dict[str, Any], dict[str, str]]:
        """The body and URL parameters of a search, as sent: ``fast`` without the ``question``'s
        vector, hybrid (``precise``) with it, for the rerank's candidates."""
        filters = filter_clauses(where)
        keyword: dict[str, Any] = {
            "bool": {
                "must": [
                    {"multi_match": {"query": query, "fields": _FIELDS, "type": "most_fields"}}
                ],
                "filter": filters,
            }
        }
        if question is None:
            return {"size": k, "_source": _SOURCE, "query": keyword}, {}
        knn = self.knn_request(question, filters, k)["query"]
        body = {
            "size": max(RERANK_DEPTH, k),
            "_source": _SOURCE,
            "query": {"hybrid": {"queries": [keyword, knn]}},
        }
        return body, {"search_pipeline": self._pipeline}

    def knn_request(
        self, question: npt.NDArray[np.float32], filters: list[dict[str, Any]], k: int
    ) -> dict[str, Any]:
        """A plain k-NN search of the ``k`` nearest cards under ``filters`` (``filter_clauses``),
        with their vectors and latent terms; its query is the hybrid search's k-NN side."""
        knn: dict[str, Any] = {"vector": [float(x) for x in question], "k": max(PRECISE_POOL, k)}
        if filters:
            knn["filter"] = {"bool": {"filter": filters}}  # efficient filtering, inside k-NN
        source = {"includes": [*_SOURCE["includes"], "embedding", "latent_terms"]}
        return {"size": k, "_source": source, "query": {"knn": {"embedding": knn}}}

    def count(self, collection: str | None = None) -> int:
        query = {"term": {"collection": collection}} if collection else {"match_all": {}}
        response = self._read(self._client.count, index=self._index, body={"query": query})
        return 0 if response is None else int(response["count"])

    def unlocated(self) -> dict[str, int]:
        body = {
            "size": 0,
            "query": {"bool": {"must_not": [{"exists": {"field": "char_start"}}]}},
            "aggs": {"collections": {"terms": {"field": "collection", "size": 10_000}}},
        }
        response = self._read(self._client.search, index=self._index, body=body)
        if response is None:
            return {}
        buckets = response.get("aggregations", {}).get("collections", {}).get("buckets", [])
        return {str(b["key"]): int(b["doc_count"]) for b in buckets}

    def source_counts(self, where: SearchFilter) -> dict[str, int]:
        """A composite aggregation on ``source_id`` under the filter, paged: any number of
        sources. A read: what was written less than a refresh ago may not count yet."""
        counts: dict[str, int] = {}
        after: dict[str, Any] | None = None
        while True:
            sources: dict[str, Any] = {
                "size": 1000,
                "sources": [{"source": {"terms": {"field": "source_id"}}}],
            }
            if after is not None:
                sources["after"] = after
            body = {
                "size": 0,
                "query": {"bool": {"filter": filter_clauses(where)}},
                "aggs": {"sources": {"composite": sources}},
            }
            response = self._read(self._client.search, index=self._index, body=body)
            if response is None:
                return counts
            aggregation = response["aggregations"]["sources"]
            for bucket in aggregation["buckets"]:
                counts[bucket["key"]["source"]] = int(bucket["doc_count"])
            after = aggregation.get("after_key")
            if not aggregation["buckets"] or after is None:
                return counts

    def source_cards(self, collection: str) -> dict[str, int]:
        """On a managed domain the index is refreshed first, so cards written a moment ago
        count (Serverless refreshes on its own, within about a minute). Ingest's check: a
        write, which needs the rights to refresh."""
        if (
            not self._serverless
            and self._read(self._client.indices.refresh, index=self._index) is None
        ):
            return {}  # no index: nothing was written, or it was lost
        return self.source_counts(SearchFilter(collections=[collection]))

    def _read(self, method: Callable[..., Any], **kwargs: Any) -> Any:
        """A read, within the read timeout; ``None`` when nothing was written yet (no index,
        and so no pipeline)."""
        from opensearchpy.exceptions import NotFoundError, RequestError

        try:
            return self._call(method, timeout_s=self._read_timeout_s, **kwargs)
        except NotFoundError as error:
            if error.error == "index_not_found_exception":
                # Lost since it was made (a wiped node): the next write makes it again, rather
                # than letting ``_bulk`` create one with a mapping of OpenSearch's own guess.
                self._ensured = False
                return None
            raise
        except RequestError as error:
            # An unknown search pipeline is checked before the index: it is a 400, and the
            # reader's cue only if the index is missing too (``ensure`` creates the pipeline
            # first, so an index without it is a broken setup, reported as such).
            if "is not defined" in str(error.info) and not self._call(
                self._client.indices.exists, timeout_s=self._read_timeout_s, index=self._index
            ):
                return None
            raise

    def _refresh(self) -> None:
        """Make every write so far searchable: ``_delete_by_query`` finds only what is, so a
        card written a moment ago would outlive its source's deletion or re-ingest."""
        self._call(self._client.indices.refresh, index=self._index)

    def _ready_to_write(self) -> None:
        if not self._ensured:
            self.ensure()

    def _index_actions(
        self, cards: Sequence[Card], embedded: tuple[Any, list[bytes], list[bytes]] | None = None
    ) -> list[dict[str, Any]]:
        """The bulk lines writing ``cards``, embedded now unless ``embedded`` holds their
        vectors, sentence vectors and latent terms already."""
        if embedded is None:
            texts = [_embedded_text(card) for card in cards]
            embedded = (
                self._embedder.embed(texts, role="passage"),
                embed_sentences(cards, self._sentences),
                card_terms(cards, self._terms_by),
            )
        vectors, sentences, terms = embedded
        actions: list[dict[str, Any]] = []
        for card, vector, blob, card_blob in zip(cards, vectors, sentences, terms, strict=True):
            action: dict[str, Any] = {"_index": self._index}
            if not self._serverless:
                action["_id"] = card.id  # a stable id: writing a card again replaces it
            document_ = document(card, [float(x) for x in vector], blob, card_blob)
            actions += [{"index": action}, document_]
        return actions

    def _ids(self, query: dict[str, Any]) -> list[str]:
        ids: list[str] = []
        after: list[Any] | None = None
        while True:
            body: dict[str, Any] = {
                "size": 1000,
                "_source": False,
                "query": query,
                # Unique per written document; card_id is not where Serverless holds copies.
                "sort": [{"write_id": "asc"}],
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
        """Send ``actions`` in requests of at most ``MAX_BULK_BYTES`` (one action and its
        document stay together; a pair larger than that goes alone)."""
        chunk: list[dict[str, Any]] = []
        size = 0
        for action, source in _pairs(actions):
            lines = [action] if source is None else [action, source]
            pair_size = sum(len(json.dumps(line)) + 1 for line in lines)
            if chunk and size + pair_size > MAX_BULK_BYTES:
                self._send_bulk(chunk)
                chunk, size = [], 0
            chunk += lines
            size += pair_size
        if chunk:
            self._send_bulk(chunk)

    def _send_bulk(self, actions: list[dict[str, Any]]) -> None:
        """Send one request; items refused for load (429, 5xx) are sent again with backoff."""
        for attempt in range(MAX_ATTEMPTS):
            response = self._call(self._client.bulk, body=actions, params=self._write_params)
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
        raise RetrievalUnavailable(f"OpenSearch kept refusing {len(actions)} bulk lines for load")

    def _call(
        self,
        method: Callable[..., Any],
        *args: Any,
        timeout_s: float | None = None,
        **kwargs: Any,
    ) -> Any:
        """Call the client, retrying throttling (429), server errors and lost connections
        within a budget of ``BUDGET_FACTOR`` times the timeout: each attempt may wait
        ``timeout_s`` (reads) or the client's own timeout (writes, ``WRITE_TIMEOUT_S``), at
        most until the budget ends. ``RetrievalUnavailable`` when the budget or the attempts
        run out, and at once while the circuit is open (the node gave no answer lately)."""
        from opensearchpy.exceptions import ConnectionError as LostConnection
        from opensearchpy.exceptions import TransportError

        self._circuit.check()
        timeout = timeout_s or WRITE_TIMEOUT_S
        deadline = time.monotonic() + BUDGET_FACTOR * timeout
        answered = False
        last: TransportError | None = None
        for attempt in range(MAX_ATTEMPTS):
            if timeout_s is not None:
                kwargs["request_timeout"] = max(0.1, min(timeout_s, deadline - time.monotonic()))
            try:
                result = method(*args, **kwargs)
            except TransportError as error:
                lost = isinstance(error, LostConnection)
                if not lost:
                    answered = True
                    self._circuit.answered()
                    if error.status_code not in RETRY_STATUSES:
                        raise
                last = error
            else:
                self._circuit.answered()
                return result
            delay = _backoff(attempt)
            if attempt == MAX_ATTEMPTS - 1 or time.monotonic() + delay >= deadline:
                break
            logger.warning("OpenSearch %s, retrying", last.status_code)
            self._sleep(delay)
        if not answered:
            self._circuit.failed()
        raise RetrievalUnavailable(f"OpenSearch did not answer: {last}") from last


def document(
    card: Card, vector: list[float], sentences: bytes = b"", terms: bytes = b""
) -> dict[str, Any]:
    """The indexed document of a card: searchable fields, filters, vectors and the card."""
    start = card.period_start or card.period_end
    end = card.period_end or card.period_start
    return {
        "card_id": card.id,
        "write_id": uuid.uuid4().hex,
        "collection": card.collection,
        "source_id": card.source_id,
        "tags": card.tags,
        "language": card.language,
        "period_start": day(start) if start else None,
        "period_end": day(end, end=True) if end else None,
        "char_start": card.char_start,
        "page": card.page,
        "text": card.text,
        "heading": " ".join(card.heading_path),
        "title": card.byline,
        "embedding": vector,
        "card": json.loads(card.model_dump_json()),
        "sentence_vectors": base64.b64encode(sentences).decode(),
        "latent_terms": base64.b64encode(terms).decode(),
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
    if where.restricted:
        clauses.append(_restricted_clause(where))
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


def _restricted_clause(where: SearchFilter) -> dict[str, Any]:
    """A card of an unrestricted collection, or one its collection's restriction allows."""
    alternatives: list[dict[str, Any]] = [
        {"bool": {"must_not": [{"terms": {"collection": list(where.restricted)}}]}}
    ]
    for name, restriction in where.restricted.items():
        allowed = [
            {"terms": {field: values}}
            for field, values in (("tags", restriction.tags), ("source_id", restriction.source_ids))
            if values
        ]
        alternatives.append(
            {
                "bool": {
                    "filter": [{"term": {"collection": name}}],
                    "should": allowed,
                    "minimum_should_match": 1,
                }
            }
        )
    return {"bool": {"should": alternatives, "minimum_should_match": 1}}


def connect(url: str, *, region: str | None, service: str | None) -> Any:
    """An opensearch-py client; with ``service`` ("es" or "aoss"), requests are SigV4-signed
    for ``region``, else for the function's own region (``AWS_REGION``, which Lambda sets),
    else for boto3's default one."""
    from opensearchpy import AWSV4SignerAuth, OpenSearch, RequestsHttpConnection

    auth = None
    if service:
        import boto3

        session = boto3.Session()
        region = region or os.environ.get("AWS_REGION") or session.region_name
        if not region:
            raise ValueError("GROUNDWORK_OPENSEARCH_REGION or AWS_REGION is needed to sign")
        auth = AWSV4SignerAuth(session.get_credentials(), region, service)
    return OpenSearch(
        hosts=[url],
        http_auth=auth,
        use_ssl=url.startswith("https"),
        verify_certs=url.startswith("https"),
        connection_class=RequestsHttpConnection,
        timeout=WRITE_TIMEOUT_S,  # reads pass their own, shorter one
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


def _hit(raw: dict[str, Any]) -> Hit:
    """A search hit as returned: its card, score, stored sentence vectors and latent terms."""
    return Hit(
        card=Card.model_validate(raw["_source"]["card"]),
        score=float(raw["_score"]),
        sentence_vectors=base64.b64decode(raw["_source"].get("sentence_vectors") or ""),
        latent_terms=base64.b64decode(raw["_source"].get("latent_terms") or ""),
    )


def _joined(blobs: Sequence[bytes]) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.int64]]:
    """Blobs as one array, with where each ends: how a reindex batch file keeps them."""
    return np.frombuffer(b"".join(blobs), dtype=np.uint8), np.cumsum([len(b) for b in blobs])


def _split(joined: npt.NDArray[np.uint8], ends: npt.NDArray[np.int64]) -> list[bytes]:
    """Blobs saved by :func:`_joined`."""
    blob, stops = joined.tobytes(), ends.tolist()
    return [blob[a:b] for a, b in zip([0, *stops[:-1]], stops, strict=True)]


def _embedded_text(card: Card) -> str:
    from groundwork.retrieval.embedded import passage_text

    return passage_text(card)
