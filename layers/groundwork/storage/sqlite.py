"""The embedded storage: one SQLite file under the data directory."""

from __future__ import annotations

import sqlite3
import threading
from typing import TYPE_CHECKING

from groundwork.storage.base import AnswerRecord, SourceRecord, Storage

if TYPE_CHECKING:
    from pathlib import Path

_SCHEMA = """
CREATE TABLE IF NOT EXISTS sources (
    id TEXT PRIMARY KEY,
    collection TEXT NOT NULL,
    body TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS sources_collection ON sources(collection);
CREATE TABLE IF NOT EXISTS answers (
    id TEXT PRIMARY KEY,
    body TEXT NOT NULL
);
"""


class SQLiteStorage(Storage):
    """Rows hold pydantic JSON bodies; each call is one transaction."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.executescript(_SCHEMA)
        self._lock = threading.Lock()

    def put_source(self, source: SourceRecord) -> None:
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO sources (id, collection, body) VALUES (?, ?, ?)",
                (source.id, source.collection, source.model_dump_json()),
            )

    def get_source(self, source_id: str) -> SourceRecord | None:
        with self._lock:
            row = self._db.execute("SELECT body FROM sources WHERE id = ?", (source_id,)).fetchone()
        return SourceRecord.model_validate_json(row[0]) if row else None

    def delete_source(self, source_id: str) -> bool:
        with self._lock:
            cursor = self._db.execute("DELETE FROM sources WHERE id = ?", (source_id,))
        return cursor.rowcount > 0

    def list_sources(self, collection: str) -> list[SourceRecord]:
        with self._lock:
            rows = self._db.execute(
                "SELECT body FROM sources WHERE collection = ? ORDER BY id", (collection,)
            ).fetchall()
        return [SourceRecord.model_validate_json(r[0]) for r in rows]

    def put_answer(self, answer: AnswerRecord) -> None:
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO answers (id, body) VALUES (?, ?)",
                (answer.id, answer.model_dump_json()),
            )

    def get_answer(self, answer_id: str) -> AnswerRecord | None:
        with self._lock:
            row = self._db.execute("SELECT body FROM answers WHERE id = ?", (answer_id,)).fetchone()
        return AnswerRecord.model_validate_json(row[0]) if row else None

    def close(self) -> None:
        self._db.close()
