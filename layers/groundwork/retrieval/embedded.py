"""The default index: BM25 and vectors in one SQLite file, fused into one ranking.

Vectors are computed when cards are written, never at query time (only the question is
embedded): one per card, and one per sentence of the card, which an answer ranks
(``retrieval.sentence_vectors``), with the card's latent terms (``retrieval.latent_terms``).
The file records the embedding models that built the two (``index_meta``) and refuses to
search or write with others (``groundwork reindex`` re-embeds). For search the card vectors
are held in memory as one float32 matrix, reloaded when the file changes (also when another
process, such as ``groundwork ingest``, wrote it). Filters are applied before scoring: the
vector side scores only the rows the filter allows, the keyword side is one SQL query with the
filter in it, so ``k`` results come back whenever ``k`` cards are allowed.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from groundwork.domain.cards import Card
from groundwork.embeddings.base import EmbeddingModel
from groundwork.embeddings.models import MINILM
from groundwork.retrieval.base import KEYWORD_WEIGHT, IndexEmbedderMismatch, min_max
from groundwork.retrieval.keyword import CardVectors, KeywordIndex, filter_sql, reported
from groundwork.retrieval.latent_terms import card_terms
from groundwork.retrieval.rerank import COVERAGE_WEIGHT, RERANK_DEPTH, SENTENCE_WEIGHT, rerank
from groundwork.retrieval.sentence_vectors import embed_sentences

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from pathlib import Path

    import numpy.typing as npt

    from groundwork.domain.cards import Hit
    from groundwork.embeddings.base import Embedder
    from groundwork.retrieval.base import Quality, SearchFilter

#: Cards embedded per call when a source is replaced, so that progress can be shown.
EMBED_BATCH = 256
#: Candidates taken from each side before fusing (precise).
PRECISE_POOL = 100


@dataclass
class _Vectors:
    """Every stored vector, row-aligned with the rowids and the codes used to filter."""

    rowids: npt.NDArray[np.int64]
    matrix: npt.NDArray[np.float32]
    collections: npt.NDArray[np.int32]
    collection_codes: dict[str, int]


_META = """
CREATE TABLE IF NOT EXISTS index_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS reindex_vectors (
    card_rowid INTEGER PRIMARY KEY REFERENCES cards(rowid) ON DELETE CASCADE,
    vector BLOB NOT NULL,
    sentences BLOB,
    terms BLOB
);
"""


class EmbeddedIndex(KeywordIndex):
    """Hybrid search: BM25 (FTS5) and exact cosine similarity, fused by normalised scores.

    ``embedder`` embeds the cards and the questions searched for; ``sentences`` (by default
    the same) the sentence vectors, which answers compare with their question embedded by it.
    With ``terms`` each card's latent terms are written (``GROUNDWORK_LATENT_TERMS``).
    """

    def __init__(
        self,
        path: Path,
        embedder: Embedder,
        sentences: Embedder | None = None,
        *,
        terms: bool = False,
    ) -> None:
        super().__init__(path)
        self._embedder = embedder
        self._sentences = sentences or embedder
        self._terms_by = embedder if terms else None
        self._vectors: _Vectors | None = None
        self._version = -1
        self._vectors_lock = threading.Lock()
        with self._transaction():
            for statement in _META.split(";"):
                if statement.strip():
                    self._db.execute(statement)
            stored = {r[1] for r in self._db.execute("PRAGMA table_info(reindex_vectors)")}
            if "terms" not in stored:  # a reindex begun before cards had terms
                self._db.execute("ALTER TABLE reindex_vectors ADD COLUMN terms BLOB")
            has_vectors = self._db.execute("SELECT 1 FROM card_vectors LIMIT 1").fetchone()
            if not has_vectors:
                # Nothing to mix: a file without vectors takes the configured models.
                self._record("embedding_model", embedder.model)
                self._record("sentence_model", self._sentences.model)
            elif self._recorded("embedding_model") is None:
                # Vectors written before the file recorded their model were MiniLM's, the
                # only model there was.
                self._record("embedding_model", MINILM)
        if not self._mismatches():
            self._backfill()

    def built_by(self) -> EmbeddingModel:
        """The embedding model of the vectors this file holds."""
        with self._lock:
            recorded = self._recorded("embedding_model")
        assert recorded is not None
        return recorded

    def sentences_built_by(self) -> EmbeddingModel:
        """The embedding model of the stored sentence vectors."""
        with self._lock:
            recorded = self._recorded("sentence_model")
        # Not recorded: the cards' model built them too, as before there could be two.
        return recorded or self.built_by()

    def _recorded(self, name: str) -> EmbeddingModel | None:
        row = self._db.execute("SELECT value FROM index_meta WHERE key = ?", (name,)).fetchone()
        return EmbeddingModel(**json.loads(row[0])) if row else None

    def _record(self, name: str, model: EmbeddingModel) -> None:
        self._db.execute(
            "INSERT OR REPLACE INTO index_meta (key, value) VALUES (?, ?)",
            (name, json.dumps({"name": model.name, "dimension": model.dimension})),
        )

    def _mismatches(self) -> list[tuple[EmbeddingModel, EmbeddingModel]]:
        """``(built by, configured)`` of the cards' and the sentences' vectors that differ."""
        pairs = [
            (self.built_by(), self._embedder.model),
            (self.sentences_built_by(), self._sentences.model),
        ]
        return [(built_by, configured) for built_by, configured in pairs if built_by != configured]

    def _check(self) -> None:
        """Refuse to mix: the file's vectors must be the configured models'."""
        mismatches = self._mismatches()
        if mismatches:
            raise IndexEmbedderMismatch(*mismatches[0])

    def _embedded(self, cards: Sequence[Card]) -> CardVectors:
        passages = self._embedder.embed([passage_text(card) for card in cards], role="passage")
        return CardVectors(
            passages, embed_sentences(cards, self._sentences), card_terms(cards, self._terms_by)
        )

    def upsert(self, cards: Sequence[Card]) -> None:
        self._check()
        self._write(cards, self._embedded(cards) if cards else None)
        self._vectors = None

    def delete_source(self, source_id: str) -> int:
        removed = super().delete_source(source_id)
        self._vectors = None
        return removed

    def replace_source(
        self,
        source_id: str,
        cards: Sequence[Card],
        *,
        progress: Callable[[int], object] | None = None,
    ) -> None:
        # Embedding is the slow part: done before the transaction, so the old cards stay
        # searchable (and a crash keeps them) until the swap.
        self._check()
        batches = []
        for start in range(0, len(cards), EMBED_BATCH):
            batch = cards[start : start + EMBED_BATCH]
            batches.append(self._embedded(batch))
            if progress:
                progress(start + len(batch))
        vectors = None
        if batches:
            vectors = CardVectors(
                np.concatenate([b.vectors for b in batches]),
                [blob for b in batches for blob in b.sentences],
                [blob for b in batches for blob in b.terms],
            )
        self._swap(source_id, cards, vectors)
        self._vectors = None

    def search(
        self,
        query: str,
        where: SearchFilter,
        k: int,
        *,
        quality: Quality = "precise",
        lexical: bool = True,
    ) -> list[Hit]:
        with reported():
            return self._search(query, where, k, quality, lexical)

    def _search(
        self, query: str, where: SearchFilter, k: int, quality: Quality, lexical: bool
    ) -> list[Hit]:
        self._check()
        if not lexical:
            from groundwork.retrieval.meaning import DEPTH, rank_nearest

            if not self._allows_any(where):
                return []
            question = self._embedder.embed([query], role="query")[0]
            ranking = self.vector_ranking(question, where, max(DEPTH, k))
            nearest = self.hits(ranking, sentences=True, meaning=True)
            return rank_nearest(self._embedder, self._sentences, query, question, nearest, k)
        if quality == "fast":
            return self.hits(self.keyword_ranking(query, where, k), sentences=True)
        keyword = self.keyword_ranking(query, where, max(PRECISE_POOL, k))
        if not keyword and not self._allows_any(where):
            return []  # the question is not embedded for a filter that allows nothing
        question = self._embedder.embed([query], role="query")[0]
        return self.reranked(query, keyword, question, where, k)

    def reranked(
        self,
        query: str,
        keyword: Sequence[tuple[int, float]],
        question: npt.NDArray[np.float32],
        where: SearchFilter,
        k: int,
        *,
        keyword_weight: float = KEYWORD_WEIGHT,
        sentence_weight: float = SENTENCE_WEIGHT,
        coverage_weight: float = COVERAGE_WEIGHT,
    ) -> list[Hit]:
        """``precise`` past its keyword side: ``keyword`` (``query``'s BM25 ranking) fused with
        the nearest cards to ``question`` (its vector), the best reranked. The weights are
        parameters for ``bench.multilingual --parts weights`` (and ``coverage``), which chose
        them."""
        vector = self.vector_ranking(question, where, max(PRECISE_POOL, k))
        fused = fuse(keyword, vector, keyword_weight=keyword_weight)
        candidates = self.hits(fused[: max(RERANK_DEPTH, k)], sentences=True)
        same_model = self._sentences.model == self._embedder.model
        asked = question if same_model else None
        return rerank(
            query, candidates, asked,
            sentence_weight=sentence_weight, coverage_weight=coverage_weight,
        )[:k]  # fmt: skip

    def reindex(self, *, progress: Callable[[int, int], object] | None = None) -> int:
        """Every card embedded again by the configured models into ``reindex_vectors``, a
        batch per transaction (a run killed midway goes on from there), then swapped in for
        the old vectors and recorded as the file's models, in one transaction."""
        model, sentence_model = self._embedder.model, self._sentences.model
        with self._transaction():
            if (self._recorded("reindex_model"), self._recorded("reindex_sentence_model")) != (
                model,
                sentence_model,
            ):
                self._db.execute("DELETE FROM reindex_vectors")
                self._record("reindex_model", model)
                self._record("reindex_sentence_model", sentence_model)
            total = int(self._db.execute("SELECT count(*) FROM cards").fetchone()[0])
            todo = [
                r[0]
                for r in self._db.execute(
                    "SELECT c.rowid FROM cards c LEFT JOIN reindex_vectors r "
                    "ON r.card_rowid = c.rowid WHERE r.card_rowid IS NULL ORDER BY c.rowid"
                )
            ]
        done = total - len(todo)
        if progress:
            progress(done, total)
        for start in range(0, len(todo), EMBED_BATCH):
            rowids = todo[start : start + EMBED_BATCH]
            marks = ", ".join("?" * len(rowids))
            with self._lock:
                rows = self._db.execute(
                    f"SELECT rowid, payload FROM cards WHERE rowid IN ({marks})", rowids
                ).fetchall()
            cards = [Card.model_validate_json(payload) for _, payload in rows]
            embedded = self._embedded(cards)
            with self._transaction():
                self._db.executemany(
                    "INSERT OR REPLACE INTO reindex_vectors (card_rowid, vector, sentences, terms) "
                    "VALUES (?, ?, ?, ?)",
                    [embedded.row(i, rowid) for i, (rowid, _) in enumerate(rows)],
                )
            done += len(rows)
            if progress:
                progress(done, total)
        with self._transaction():
            self._db.execute("DELETE FROM card_vectors")
            self._db.execute(
                "INSERT INTO card_vectors (card_rowid, vector, sentences, terms) "
                "SELECT card_rowid, vector, sentences, terms FROM reindex_vectors"
            )
            self._db.execute("DELETE FROM reindex_vectors")
            self._db.execute(
                "DELETE FROM index_meta WHERE key IN ('reindex_model', 'reindex_sentence_model')"
            )
            self._record("embedding_model", model)
            self._record("sentence_model", sentence_model)
        self._vectors = None
        return total

    def vector_ranking(
        self, question: npt.NDArray[np.float32], where: SearchFilter, limit: int
    ) -> list[tuple[int, float]]:
        """``(rowid, cosine)`` of the ``limit`` nearest allowed cards, best first."""
        vectors = self._current_vectors()
        if not len(vectors.rowids):
            return []
        allowed = self._allowed_rows(vectors, where)
        if allowed is None:
            scores = vectors.matrix @ question
            rows = np.arange(len(scores))
        else:
            rows = np.flatnonzero(allowed)
            if not len(rows):
                return []
            # A dense filter is cheaper as a mask over all scores than as a gathered copy.
            if len(rows) * 4 > len(allowed):
                scores = (vectors.matrix @ question)[rows]
            else:
                scores = vectors.matrix[rows] @ question
        limit = min(limit, len(scores))
        top = np.argpartition(-scores, limit - 1)[:limit]
        top = top[np.argsort(-scores[top], kind="stable")]
        return [(int(vectors.rowids[rows[i]]), float(scores[i])) for i in top]

    def _allows_any(self, where: SearchFilter) -> bool:
        allowed = self._allowed_rows(self._current_vectors(), where)
        return allowed is None or bool(allowed.any())

    def _allowed_rows(self, vectors: _Vectors, where: SearchFilter) -> npt.NDArray[np.bool_] | None:
        mask: npt.NDArray[np.bool_] | None = None
        if where.collections:
            codes = [vectors.collection_codes.get(c, -1) for c in where.collections]
            mask = np.isin(vectors.collections, codes)
        narrowing = where.model_copy(update={"collections": []})
        conditions, args = filter_sql(narrowing)
        if conditions:
            with self._lock:
                rowids = np.fromiter(
                    (r[0] for r in self._db.execute(
                        f"SELECT c.rowid FROM cards c WHERE 1 {conditions}", args
                    )),
                    dtype=np.int64,
                )  # fmt: skip
            others = np.isin(vectors.rowids, rowids, assume_unique=True)
            mask = others if mask is None else mask & others
        return mask

    def _current_vectors(self) -> _Vectors:
        with self._lock:
            version = int(self._db.execute("PRAGMA data_version").fetchone()[0])
        with self._vectors_lock:
            if self._vectors is None or version != self._version:
                self._vectors = self._load_vectors()
                self._version = version
            return self._vectors

    def _load_vectors(self) -> _Vectors:
        with self._lock:
            rows = self._db.execute(
                "SELECT v.card_rowid, c.collection, v.vector FROM card_vectors v "
                "JOIN cards c ON c.rowid = v.card_rowid ORDER BY v.card_rowid"
            ).fetchall()
        codes: dict[str, int] = {}
        dimension = self._embedder.dimension
        matrix = np.frombuffer(b"".join(r[2] for r in rows), dtype="<f4").reshape(-1, dimension)
        return _Vectors(
            rowids=np.array([r[0] for r in rows], dtype=np.int64),
            matrix=np.ascontiguousarray(matrix, dtype=np.float32),
            collections=np.array([codes.setdefault(r[1], len(codes)) for r in rows], np.int32),
            collection_codes=codes,
        )

    def _backfill(self) -> None:
        """Embed cards written without a vector (by the keyword index), once, on open."""
        with self._lock:
            missing = self._db.execute(
                "SELECT c.rowid, c.payload FROM cards c "
                "LEFT JOIN card_vectors v ON v.card_rowid = c.rowid WHERE v.card_rowid IS NULL"
            ).fetchall()
        if not missing:
            return
        cards = [Card.model_validate_json(payload) for _, payload in missing]
        embedded = self._embedded(cards)
        with self._transaction():
            self._db.executemany(
                "INSERT OR REPLACE INTO card_vectors (card_rowid, vector, sentences, terms) "
                "VALUES (?, ?, ?, ?)",
                [embedded.row(i, rowid) for i, (rowid, _) in enumerate(missing)],
            )


def passage_text(card: Card) -> str:
    """What is embedded for a card: its nearest heading gives a short passage its topic."""
    return f"{card.heading}\n{card.text}" if card.heading else card.text


def fuse(
    keyword: Sequence[tuple[int, float]],
    vector: Sequence[tuple[int, float]],
    *,
    keyword_weight: float = KEYWORD_WEIGHT,
) -> list[tuple[int, float]]:
    """Min-max normalised scores of both sides, weighted and added (0 for a side that missed a
    row), as OpenSearch's normalization processor does; best first.

    Unlike reciprocal rank fusion it keeps how far apart the scores are, so a side that is
    sure of its first answer outweighs a side whose candidates all look alike.
    """
    scores: dict[int, float] = {}
    for ranking, weight in ((keyword, keyword_weight), (vector, 1 - keyword_weight)):
        if not ranking:
            continue
        for (rowid, _), share in zip(ranking, min_max([s for _, s in ranking]), strict=True):
            scores[rowid] = scores.get(rowid, 0.0) + weight * share
    return sorted(scores.items(), key=lambda item: -item[1])
