"""The default index: BM25 and MiniLM vectors in one SQLite file, fused into one ranking.

Vectors are computed when cards are written, never at query time (only the question is
embedded). For search they are held in memory as one float32 matrix, reloaded when the file
changes (also when another process, such as ``groundwork ingest``, wrote it). Filters are
applied before scoring: the vector side scores only the rows the filter allows, the keyword
side is one SQL query with the filter in it, so ``k`` results come back whenever ``k`` cards
are allowed.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from groundwork.retrieval.keyword import KeywordIndex, filter_sql, reported
from groundwork.retrieval.rerank import coverage

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from pathlib import Path

    import numpy.typing as npt

    from groundwork.domain.cards import Card, Hit
    from groundwork.embeddings.base import Embedder
    from groundwork.retrieval.base import Quality, SearchFilter

#: Cards embedded per call when a source is replaced, so that progress can be shown.
EMBED_BATCH = 256
#: Weight of the keyword side in the fused score (the vector side has the rest).
KEYWORD_WEIGHT = 0.5
#: Candidates taken from each side before fusing (precise).
PRECISE_POOL = 100
#: How many fused candidates the precise rerank looks at.
RERANK_DEPTH = 30
#: Weight of the query-term coverage of a passage in the precise rerank (fused scores are 0–1).
COVERAGE_WEIGHT = 0.5


@dataclass
class _Vectors:
    """Every stored vector, row-aligned with the rowids and the codes used to filter."""

    rowids: npt.NDArray[np.int64]
    matrix: npt.NDArray[np.float32]
    collections: npt.NDArray[np.int32]
    collection_codes: dict[str, int]


class EmbeddedIndex(KeywordIndex):
    """Hybrid search: BM25 (FTS5) and exact cosine similarity, fused by normalised scores."""

    def __init__(self, path: Path, embedder: Embedder) -> None:
        super().__init__(path)
        self._embedder = embedder
        self._vectors: _Vectors | None = None
        self._version = -1
        self._vectors_lock = threading.Lock()
        self._backfill()

    def upsert(self, cards: Sequence[Card]) -> None:
        vectors = self._embedder.embed([passage_text(card) for card in cards]) if cards else None
        self._write(cards, vectors)
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
        batches = []
        for start in range(0, len(cards), EMBED_BATCH):
            batch = cards[start : start + EMBED_BATCH]
            batches.append(self._embedder.embed([passage_text(card) for card in batch]))
            if progress:
                progress(start + len(batch))
        self._swap(source_id, cards, np.concatenate(batches) if batches else None)
        self._vectors = None

    def search(
        self, query: str, where: SearchFilter, k: int, *, quality: Quality = "precise"
    ) -> list[Hit]:
        with reported():
            return self._search(query, where, k, quality)

    def _search(self, query: str, where: SearchFilter, k: int, quality: Quality) -> list[Hit]:
        if quality == "fast":
            return self.hits(self.keyword_ranking(query, where, k))
        pool = max(PRECISE_POOL, k)
        keyword = self.keyword_ranking(query, where, pool)
        if not keyword and not self._allows_any(where):
            return []  # the question is not embedded for a filter that allows nothing
        question = self._embedder.embed([query])[0]
        vector = self.vector_ranking(question, where, pool)
        fused = fuse(keyword, vector)
        return rerank(query, self.hits(fused[: max(RERANK_DEPTH, k)]))[:k]

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
        from groundwork.domain.cards import Card

        cards = [Card.model_validate_json(payload) for _, payload in missing]
        vectors = self._embedder.embed([passage_text(card) for card in cards])
        with self._lock:
            self._db.execute("BEGIN")
            self._db.executemany(
                "INSERT OR REPLACE INTO card_vectors (card_rowid, vector) VALUES (?, ?)",
                [
                    (rowid, vector.astype("<f4").tobytes())
                    for (rowid, _), vector in zip(missing, vectors, strict=True)
                ],
            )
            self._db.execute("COMMIT")


def passage_text(card: Card) -> str:
    """What is embedded for a card: its nearest heading gives a short passage its topic."""
    return f"{card.heading}\n{card.text}" if card.heading else card.text


def fuse(
    keyword: Sequence[tuple[int, float]], vector: Sequence[tuple[int, float]]
) -> list[tuple[int, float]]:
    """Min-max normalised scores of both sides, weighted and added (0 for a side that missed a
    row), as OpenSearch's normalization processor does; best first.

    Unlike reciprocal rank fusion it keeps how far apart the scores are, so a side that is
    sure of its first answer outweighs a side whose candidates all look alike.
    """
    scores: dict[int, float] = {}
    for ranking, weight in ((keyword, KEYWORD_WEIGHT), (vector, 1 - KEYWORD_WEIGHT)):
        if not ranking:
            continue
        low = min(score for _, score in ranking)
        spread = max(score for _, score in ranking) - low
        for rowid, score in ranking:
            share = (score - low) / spread if spread > 0 else 1.0
            scores[rowid] = scores.get(rowid, 0.0) + weight * share
    return sorted(scores.items(), key=lambda item: -item[1])


def rerank(query: str, hits: list[Hit]) -> list[Hit]:
    """Adds how much of the question's weight each passage covers, and sorts again."""
    cover = coverage(query, [hit.card for hit in hits])
    for hit, share in zip(hits, cover, strict=True):
        hit.score += COVERAGE_WEIGHT * share
    return sorted(hits, key=lambda hit: -hit.score)
