"""The response cache in SQLite; expired rows are ignored on read and swept on write."""

from __future__ import annotations

from typing import TYPE_CHECKING

from groundwork.storage.cache import ResponseCache
from groundwork.storage.records import CacheEntry
from groundwork.storage.sqlite_db import SWEEP_BATCH

if TYPE_CHECKING:
    from pydantic import JsonValue

    from groundwork.storage.sqlite_db import SQLiteDatabase


class SQLiteResponseCache(ResponseCache):
    def __init__(self, database: SQLiteDatabase) -> None:
        self._db = database

    def get(self, key: str) -> CacheEntry | None:
        with self._db.read() as db:
            row = db.execute(
                "SELECT body FROM cache WHERE key = ? AND expiration > ?", (key, self._db.now())
            ).fetchone()
        return CacheEntry.model_validate_json(row[0]) if row else None

    def put(self, key: str, response: dict[str, JsonValue], ttl_seconds: int) -> CacheEntry:
        now = self._db.now()
        entry = CacheEntry(key=key, response=response, created=now, expiration=now + ttl_seconds)
        with self._db.write() as db:
            db.execute(
                "DELETE FROM cache WHERE rowid IN "
                "(SELECT rowid FROM cache WHERE expiration <= ? LIMIT ?)",
                (now, SWEEP_BATCH),
            )
            db.execute(
                "INSERT OR REPLACE INTO cache (key, expiration, body) VALUES (?, ?, ?)",
                (key, entry.expiration, entry.model_dump_json()),
            )
        return entry

    def delete(self, key: str) -> bool:
        with self._db.write() as db:
            cursor = db.execute("DELETE FROM cache WHERE key = ?", (key,))
        return cursor.rowcount > 0
