"""An on-disk BM25 keyword index: SQLite FTS5, part of Python, nothing to install.

The same file holds each card's vector and its sentences' vectors (``card_vectors``) when the
hybrid index writes them, so a card, its words and its vectors are added and removed in one
transaction.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING

from groundwork.domain.cards import Card, Hit
from groundwork.private_files import create_private
from groundwork.retrieval.base import (
    Quality,
    Restriction,
    RetrievalUnavailable,
    Retriever,
    SearchFilter,
    day,
)
from groundwork.retrieval.language_column import add_language_column
from groundwork.sqlite_faults import reported_as
from groundwork.sqlite_transaction import committed
from groundwork.text.terms import STOPWORDS, spaced, words

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Sequence
    from pathlib import Path

    import numpy as np
    import numpy.typing as npt

_SCHEMA = """
CREATE TABLE IF NOT EXISTS cards (
    rowid INTEGER PRIMARY KEY,
    id TEXT UNIQUE NOT NULL,
    collection TEXT NOT NULL,
    source_id TEXT NOT NULL,
    language TEXT,
    payload TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS cards_collection ON cards(collection);
CREATE INDEX IF NOT EXISTS cards_source ON cards(source_id);
CREATE TABLE IF NOT EXISTS card_tags (
    card_rowid INTEGER NOT NULL REFERENCES cards(rowid) ON DELETE CASCADE,
    tag TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS card_tags_tag ON card_tags(tag, card_rowid);
CREATE TABLE IF NOT EXISTS card_vectors (
    card_rowid INTEGER PRIMARY KEY REFERENCES cards(rowid) ON DELETE CASCADE,
    vector BLOB NOT NULL,
    sentences BLOB,
    terms BLOB
);
"""
# ``scope`` holds one token per collection, source and tag of the card, so that those filters
# are part of the MATCH: FTS5 intersects posting lists, and BM25 scores only allowed cards.
_FTS = """
CREATE VIRTUAL TABLE IF NOT EXISTS cards_fts USING fts5(
    text, heading, title, scope, tokenize = 'porter unicode61 remove_diacritics 2'
);
"""
# The word index's format, in the file's user_version: 1 writes Chinese and Japanese as their
# character pairs (``text.terms.spaced``), 2 Korean too, 3 the author beside the title. A word
# index written before is rebuilt when opened.
_FTS_VERSION = 3
# Added after the first release; an index written before them gains them when opened.
_LATER_COLUMNS = ("period_start", "period_end")
# Column weights for bm25(): the passage counts most, its heading and title help; scope is
# only a filter.
_WEIGHTS = "10.0, 4.0, 2.0, 0.0"
# A query word found in more than this share of all cards (and in more than _COMMON_MIN of
# them) says little about relevance but makes BM25 score every one of those cards: it is left
# out of the query unless it is the query's rarest word. Small indexes are never pruned.
_COMMON_SHARE = 0.02
_COMMON_MIN = 1_000


@dataclass(frozen=True)
class CardVectors:
    """What the hybrid index writes beside cards: one vector per card, and per card its
    sentences' vectors (``retrieval.sentence_vectors``) and its latent terms
    (``retrieval.latent_terms``)."""

    vectors: npt.NDArray[np.float32]
    sentences: list[bytes]
    terms: list[bytes]

    def row(self, i: int, rowid: int) -> tuple[int, bytes, bytes, bytes]:
        """Card ``i``'s ``card_vectors`` row (``card_rowid, vector, sentences, terms``), for
        the card written as ``rowid``."""
        return rowid, self.vectors[i].astype("<f4").tobytes(), self.sentences[i], self.terms[i]


class KeywordIndex(Retriever):
    """BM25 over text, heading and title; filters are SQL conditions of the same query."""

    def __init__(self, path: Path) -> None:
        create_private(path)
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA foreign_keys=ON")
        self._db.executescript(_SCHEMA)
        present = {row[1] for row in self._db.execute("PRAGMA table_info(cards)")}
        for column in _LATER_COLUMNS:
            if column not in present:
                self._db.execute(f"ALTER TABLE cards ADD COLUMN {column} TEXT")
        if "language" not in present:
            add_language_column(self._db)
        stored = {row[1] for row in self._db.execute("PRAGMA table_info(card_vectors)")}
        for later in ("sentences", "terms"):
            if later not in stored:
                self._db.execute(f"ALTER TABLE card_vectors ADD COLUMN {later} BLOB")
        self._db.execute("CREATE INDEX IF NOT EXISTS cards_language ON cards(language)")
        self._create_fts()
        self._lock = threading.Lock()
        # Document frequencies of query words, valid for one state of the file.
        self._frequencies: dict[str, int] = {}
        self._total = 0
        self._state: tuple[int, int] = (-1, -1)
        self._writes = 0

    def _create_fts(self) -> None:
        """The word index; one of an earlier format (before ``scope``, before character pairs)
        is rebuilt from the cards, in one transaction: a kill midway leaves the old one."""
        if self._fts_current():
            return
        with committed(self._db) as db:
            if self._fts_current():  # another process rebuilt it meanwhile
                return
            db.execute("DROP TABLE IF EXISTS cards_fts")
            db.execute(_FTS)
            rows = db.execute("SELECT rowid, payload FROM cards").fetchall()
            db.executemany(
                "INSERT INTO cards_fts (rowid, text, heading, title, scope) VALUES (?, ?, ?, ?, ?)",
                [(rowid, *_fts_row(Card.model_validate_json(blob))) for rowid, blob in rows],
            )
            db.execute(f"PRAGMA user_version = {_FTS_VERSION}")

    def _fts_current(self) -> bool:
        columns = {row[1] for row in self._db.execute("PRAGMA table_info(cards_fts)")}
        version = int(self._db.execute("PRAGMA user_version").fetchone()[0])
        return "scope" in columns and version >= _FTS_VERSION

    def upsert(self, cards: Sequence[Card]) -> None:
        self._write(cards, None)

    def replace_source(
        self,
        source_id: str,
        cards: Sequence[Card],
        *,
        progress: Callable[[int], object] | None = None,
    ) -> None:
        self._swap(source_id, cards, None)
        if progress:
            progress(len(cards))

    def _write(self, cards: Sequence[Card], vectors: CardVectors | None) -> None:
        with self._transaction():
            self._insert(cards, vectors)

    def _swap(self, source_id: str, cards: Sequence[Card], vectors: CardVectors | None) -> None:
        """The source's cards replaced by ``cards`` in one transaction: readers see the old
        version or the new one, and a crash rolls back to the old."""
        if any(card.source_id != source_id for card in cards):
            raise ValueError(f"every card must belong to the source {source_id}")
        with self._transaction():
            self._delete_where("source_id = ?", (source_id,))
            self._insert(cards, vectors)

    def _insert(self, cards: Sequence[Card], vectors: CardVectors | None) -> None:
        """Write cards (and their vectors), inside the caller's transaction."""
        for i, card in enumerate(cards):
            self._delete_where("id = ?", (card.id,))
            start, end = _period(card)
            cursor = self._db.execute(
                "INSERT INTO cards (id, collection, source_id, period_start, period_end, "
                "language, payload) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (card.id, card.collection, card.source_id, start, end, card.language,
                 card.model_dump_json()),
            )  # fmt: skip
            rowid = cursor.lastrowid
            assert rowid is not None  # an INSERT into a rowid table always sets it
            self._db.execute(
                "INSERT INTO cards_fts (rowid, text, heading, title, scope) VALUES (?, ?, ?, ?, ?)",
                (rowid, *_fts_row(card)),
            )
            self._db.executemany(
                "INSERT INTO card_tags (card_rowid, tag) VALUES (?, ?)",
                [(rowid, tag) for tag in card.tags],
            )
            if vectors is not None:
                self._db.execute(
                    "INSERT INTO card_vectors (card_rowid, vector, sentences, terms) "
                    "VALUES (?, ?, ?, ?)",
                    vectors.row(i, rowid),
                )

    def delete_source(self, source_id: str) -> int:
        with self._transaction():
            return self._delete_where("source_id = ?", (source_id,))

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        """A write under the lock, committed whole or rolled back; either way the cached word
        frequencies are stale after it. A full disk is ``RetrievalUnavailable``."""
        with self._lock, reported():
            try:
                with committed(self._db, "BEGIN"):
                    yield
            finally:
                self._writes += 1

    def _delete_where(self, condition: str, args: tuple[str, ...]) -> int:
        rowids = [
            r[0] for r in self._db.execute(f"SELECT rowid FROM cards WHERE {condition}", args)
        ]
        for rowid in rowids:
            self._db.execute("DELETE FROM cards_fts WHERE rowid = ?", (rowid,))
            self._db.execute("DELETE FROM cards WHERE rowid = ?", (rowid,))
        return len(rowids)

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
            return self.hits(self.keyword_ranking(query, where, k))

    def keyword_ranking(
        self, query: str, where: SearchFilter, limit: int
    ) -> list[tuple[int, float]]:
        """``(rowid, score)`` of the best ``limit`` BM25 matches, best first."""
        match = " OR ".join(f'"{w}"' for w in self._informative(content_words(query)))
        scope = scope_match(where)
        if not match or scope is None:
            return []
        if scope:
            match = f"({match}) AND {scope}"
        conditions, args = filter_sql(
            where.model_copy(
                update={"collections": [], "source_ids": None, "tags": None, "restricted": {}}
            )
        )
        # The join costs a lookup per matching card: only a filter needs it.
        join = "JOIN cards c ON c.rowid = cards_fts.rowid " if conditions else ""
        sql = (
            f"SELECT cards_fts.rowid, bm25(cards_fts, {_WEIGHTS}) AS rank FROM cards_fts {join}"
            f"WHERE cards_fts MATCH ? {conditions} ORDER BY rank LIMIT ?"
        )
        with self._lock:
            rows = self._db.execute(sql, (match, *args, limit)).fetchall()
        # FTS5's bm25() is negative, lower is better; the port's scores are higher-is-better.
        return [(rowid, -rank) for rowid, rank in rows]

    def _informative(self, terms: list[str]) -> list[str]:
        if len(terms) < 2:
            return terms
        with self._lock:
            state = (int(self._db.execute("PRAGMA data_version").fetchone()[0]), self._writes)
            if state != self._state:
                self._frequencies.clear()
                self._total = int(self._db.execute("SELECT count(*) FROM cards").fetchone()[0])
                self._state = state
            if self._total * _COMMON_SHARE <= _COMMON_MIN:
                return terms
            for term in terms:
                if term not in self._frequencies:
                    self._frequencies[term] = int(
                        self._db.execute(
                            "SELECT count(*) FROM cards_fts WHERE cards_fts MATCH ?", (f'"{term}"',)
                        ).fetchone()[0]
                    )
        common = self._total * _COMMON_SHARE
        kept = [t for t in terms if self._frequencies[t] <= common]
        return kept or [min(terms, key=self._frequencies.__getitem__)]

    def hits(
        self,
        ranked: Sequence[tuple[int, float]],
        *,
        sentences: bool = False,
        meaning: bool = False,
    ) -> list[Hit]:
        """The cards of ``(rowid, score)`` pairs, in the same order; with ``sentences``, the
        vectors of their sentences as stored, with ``meaning`` their own vectors and latent
        terms (only the search by meaning reads them)."""
        if not ranked:
            return []
        marks = ", ".join("?" * len(ranked))
        by_meaning = "v.terms, v.vector" if meaning else "NULL, NULL"
        stored = f"{'v.sentences' if sentences else 'NULL'}, {by_meaning}"
        with self._lock:
            rows = self._db.execute(
                f"SELECT c.rowid, c.payload, {stored} FROM cards c "
                f"LEFT JOIN card_vectors v ON v.card_rowid = c.rowid WHERE c.rowid IN ({marks})",
                [rowid for rowid, _ in ranked],
            ).fetchall()
        found = {row[0]: row[1:] for row in rows}
        return [
            Hit(
                card=Card.model_validate(json.loads(found[rowid][0])),
                score=score,
                sentence_vectors=found[rowid][1],
                latent_terms=found[rowid][2],
                vector=found[rowid][3],
            )
            for rowid, score in ranked
            if rowid in found
        ]

    def count(self, collection: str | None = None) -> int:
        with self._lock, reported():
            if collection is None:
                row = self._db.execute("SELECT count(*) FROM cards").fetchone()
            else:
                row = self._db.execute(
                    "SELECT count(*) FROM cards WHERE collection = ?", (collection,)
                ).fetchone()
        return int(row[0])

    def unlocated(self) -> dict[str, int]:
        with self._lock, reported():
            rows = self._db.execute(
                "SELECT collection, count(*) FROM cards "
                "WHERE json_extract(payload, '$.char_start') IS NULL GROUP BY collection"
            ).fetchall()
        return {str(name): int(n) for name, n in rows}

    def source_counts(self, where: SearchFilter) -> dict[str, int]:
        conditions, args = filter_sql(where)
        with self._lock, reported():
            rows = self._db.execute(
                f"SELECT c.source_id, count(*) FROM cards c WHERE 1 {conditions} "
                "GROUP BY c.source_id",
                args,
            ).fetchall()
        return {source: int(cards) for source, cards in rows}

    def close(self) -> None:
        self._db.close()


def reported() -> AbstractContextManager[None]:
    """The index file's disk and lock failures as ``RetrievalUnavailable``."""
    return reported_as(RetrievalUnavailable, "the index file")


def content_words(text: str) -> list[str]:
    """The distinct content words of ``text``, in order, safe to quote as FTS5 terms."""
    seen: dict[str, None] = {}
    for word in words(text):
        if word not in STOPWORDS:
            seen.setdefault(word.replace('"', ""), None)
    return [w for w in seen if w]


def scope_match(where: SearchFilter) -> str | None:
    """FTS5 conditions for the collections, sources and tags ``where`` allows; None when it
    allows nothing."""
    parts = []
    for kind, values in (
        ("collection", where.collections or None),
        ("source", where.source_ids),
        ("tag", where.tags or None),
    ):
        if values is not None:
            if not values:
                return None
            if kind == "collection" and where.restricted:
                parts.append(_collections_match(values, where.restricted))
            else:
                parts.append(_any_of(kind, values))
    return " AND ".join(parts)


def _collections_match(collections: list[str], restricted: dict[str, Restriction]) -> str:
    """A card of a whole collection, or of a restricted one with one of its tags or sources."""
    whole = [c for c in collections if c not in restricted]
    alternatives = [_any_of("collection", whole)] if whole else []
    for name, restriction in restricted.items():
        allowed = [_scope_token("tag", t) for t in restriction.tags]
        allowed += [_scope_token("source", s) for s in restriction.source_ids]
        alternatives.append(f"({_any_of('collection', [name])} AND scope:({' OR '.join(allowed)}))")
    return f"({' OR '.join(alternatives)})"


def _any_of(kind: str, values: list[str]) -> str:
    return f"scope:({' OR '.join(_scope_token(kind, v) for v in values)})"


def _scope_token(kind: str, value: str) -> str:
    # A hash keeps any name a single token of letters and digits, whatever it contains.
    return f'"{kind[0]}{hashlib.sha256(value.encode()).hexdigest()[:16]}"'


def _fts_row(card: Card) -> tuple[str, str, str, str]:
    scope = [
        _scope_token("collection", card.collection),
        _scope_token("source", card.source_id),
        *(_scope_token("tag", tag) for tag in card.tags),
    ]
    return (
        spaced(card.text),
        spaced(" ".join(card.heading_path)),
        spaced(card.byline),
        " ".join(scope).replace('"', ""),
    )


def filter_sql(where: SearchFilter) -> tuple[str, list[str]]:
    """``AND …`` conditions on ``cards c`` for everything ``where`` narrows, and their args."""
    parts: list[str] = []
    args: list[str] = []
    for column, values in (
        ("c.collection", where.collections or None),
        ("c.source_id", where.source_ids),
        ("c.id", where.card_ids),
    ):
        if values is not None:
            parts.append(f"AND {column} IN ({', '.join('?' * len(values))})")
            args.extend(values)
    if where.language is not None:
        parts.append("AND c.language = ?")
        args.append(where.language)
    if where.tags:
        parts.append(f"AND {_tagged(where.tags)}")
        args.extend(where.tags)
    if where.restricted:
        # A card of an unrestricted collection, or one its collection's restriction allows.
        names = list(where.restricted)
        alternatives = [f"c.collection NOT IN ({', '.join('?' * len(names))})"]
        args.extend(names)
        for name, restriction in where.restricted.items():
            allowed = []
            if restriction.source_ids:
                allowed.append(f"c.source_id IN ({', '.join('?' * len(restriction.source_ids))})")
            if restriction.tags:
                allowed.append(_tagged(restriction.tags))
            alternatives.append(f"(c.collection = ? AND ({' OR '.join(allowed)}))")
            args.extend([name, *restriction.source_ids, *restriction.tags])
        parts.append(f"AND ({' OR '.join(alternatives)})")
    # Overlap of two periods; a card without a date is timeless and kept.
    if where.period_end:
        parts.append("AND (c.period_start IS NULL OR c.period_start <= ?)")
        args.append(day(where.period_end, end=True))
    if where.period_start:
        parts.append("AND (c.period_end IS NULL OR c.period_end >= ?)")
        args.append(day(where.period_start))
    return " ".join(parts), args


def _tagged(tags: list[str]) -> str:
    """The condition that a card of ``cards c`` has one of ``tags`` (as many ``?``)."""
    return (
        f"c.rowid IN (SELECT card_rowid FROM card_tags WHERE tag IN ({', '.join('?' * len(tags))}))"
    )


def _period(card: Card) -> tuple[str | None, str | None]:
    start = card.period_start or card.period_end
    end = card.period_end or card.period_start
    if start is None or end is None:
        return None, None
    return day(start), day(end, end=True)
