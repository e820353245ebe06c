"""The embedded storage of sources, in the shared SQLite file."""

from __future__ import annotations

from typing import TYPE_CHECKING

from groundwork.storage.base import SourceRecord, Storage
from groundwork.storage.sqlite_db import SQLiteDatabase

if TYPE_CHECKING:
    from pathlib import Path


class SQLiteStorage(Storage):
    """Rows hold pydantic JSON bodies; each call is one transaction."""

    def __init__(self, database: SQLiteDatabase | Path) -> None:
        self._db = database if isinstance(database, SQLiteDatabase) else SQLiteDatabase(database)

    def put_source(self, source: SourceRecord) -> None:
        with self._db.write() as db:
            db.execute(
                "INSERT OR REPLACE INTO sources (id, collection, body) VALUES (?, ?, ?)",
                (source.id, source.collection, source.model_dump_json()),
            )

    def get_source(self, source_id: str) -> SourceRecord | None:
        with self._db.read() as db:
            row = db.execute("SELECT body FROM sources WHERE id = ?", (source_id,)).fetchone()
        return SourceRecord.model_validate_json(row[0]) if row else None

    def delete_source(self, source_id: str) -> bool:
        with self._db.write() as db:
            cursor = db.execute("DELETE FROM sources WHERE id = ?", (source_id,))
        return cursor.rowcount > 0

    def list_sources(self, collection: str) -> list[SourceRecord]:
        with self._db.read() as db:
            rows = db.execute(
                "SELECT body FROM sources WHERE collection = ? ORDER BY id", (collection,)
            ).fetchall()
        return [SourceRecord.model_validate_json(r[0]) for r in rows]

    def close(self) -> None:
        self._db.close()
