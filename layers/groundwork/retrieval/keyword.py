"""An on-disk BM25 keyword index: SQLite FTS5, part of Python, nothing to install."""

from __future__ import annotations

import json
import sqlite3
import threading
from typing import TYPE_CHECKING

from groundwork.domain.cards import Card, Hit
from groundwork.retrieval.base import Retriever, SearchFilter
from groundwork.text.terms import STOPWORDS, words

if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

_SCHEMA = """
CREATE TABLE IF NOT EXISTS cards (
    rowid INTEGER PRIMARY KEY,
    id TEXT UNIQUE NOT NULL,
    collection TEXT NOT NULL,
    source_id TEXT NOT NULL,
    payload TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS cards_collection ON cards(collection);
CREATE INDEX IF NOT EXISTS cards_source ON cards(source_id);
CREATE TABLE IF NOT EXISTS card_tags (
    card_rowid INTEGER NOT NULL REFERENCES cards(rowid) ON DELETE CASCADE,
    tag TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS card_tags_tag ON card_tags(tag, card_rowid);
CREATE VIRTUAL TABLE IF NOT EXISTS cards_fts USING fts5(
    text, heading, title, tokenize = 'porter unicode61 remove_diacritics 2'
);
"""
# Column weights for bm25(): the passage counts most, its heading and title help.
_WEIGHTS = "10.0, 4.0, 2.0"


class KeywordIndex(Retriever):
    """BM25 over text, heading and title; filters are SQL conditions of the same query."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA foreign_keys=ON")
        self._db.executescript(_SCHEMA)
        self._lock = threading.Lock()

    def upsert(self, cards: Sequence[Card]) -> None:
        with self._lock:
            self._db.execute("BEGIN")
            try:
                for card in cards:
                    self._delete_where("id = ?", (card.id,))
                    cursor = self._db.execute(
                        "INSERT INTO cards (id, collection, source_id, payload) "
                        "VALUES (?, ?, ?, ?)",
                        (card.id, card.collection, card.source_id, card.model_dump_json()),
                    )
                    rowid = cursor.lastrowid
                    self._db.execute(
                        "INSERT INTO cards_fts (rowid, text, heading, title) VALUES (?, ?, ?, ?)",
                        (rowid, card.text, " ".join(card.heading_path), card.title or ""),
                    )
                    self._db.executemany(
                        "INSERT INTO card_tags (card_rowid, tag) VALUES (?, ?)",
                        [(rowid, tag) for tag in card.tags],
                    )
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise

    def delete_source(self, source_id: str) -> int:
        with self._lock:
            self._db.execute("BEGIN")
            try:
                removed = self._delete_where("source_id = ?", (source_id,))
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            return removed

    def _delete_where(self, condition: str, args: tuple[str, ...]) -> int:
        rowids = [
            r[0] for r in self._db.execute(f"SELECT rowid FROM cards WHERE {condition}", args)
        ]
        for rowid in rowids:
            self._db.execute("DELETE FROM cards_fts WHERE rowid = ?", (rowid,))
            self._db.execute("DELETE FROM cards WHERE rowid = ?", (rowid,))
        return len(rowids)

    def search(self, query: str, where: SearchFilter, k: int) -> list[Hit]:
        match = fts_query(query)
        if not match:
            return []
        conditions, args = _filter_sql(where)
        sql = (
            f"SELECT c.payload, bm25(cards_fts, {_WEIGHTS}) AS rank FROM cards_fts "
            "JOIN cards c ON c.rowid = cards_fts.rowid "
            f"WHERE cards_fts MATCH ? {conditions} ORDER BY rank LIMIT ?"
        )
        with self._lock:
            rows = self._db.execute(sql, (match, *args, k)).fetchall()
        # FTS5's bm25() is negative, lower is better; the port's scores are higher-is-better.
        return [Hit(card=Card.model_validate(json.loads(p)), score=-rank) for p, rank in rows]

    def count(self, collection: str | None = None) -> int:
        with self._lock:
            if collection is None:
                row = self._db.execute("SELECT count(*) FROM cards").fetchone()
            else:
                row = self._db.execute(
                    "SELECT count(*) FROM cards WHERE collection = ?", (collection,)
                ).fetchone()
        return int(row[0])

    def close(self) -> None:
        self._db.close()


def fts_query(text: str) -> str:
    """An FTS5 query matching any content word of ``text``; every term quoted, so no syntax."""
    seen: dict[str, None] = {}
    for word in words(text):
        if word not in STOPWORDS:
            seen.setdefault(word.replace('"', ""), None)
    return " OR ".join(f'"{w}"' for w in seen if w)


def _filter_sql(where: SearchFilter) -> tuple[str, list[str]]:
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
    if where.tags:
        parts.append(
            "AND c.rowid IN (SELECT card_rowid FROM card_tags "
            f"WHERE tag IN ({', '.join('?' * len(where.tags))}))"
        )
        args.extend(where.tags)
    return " ".join(parts), args
