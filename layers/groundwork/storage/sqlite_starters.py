"""Starters in SQLite, ordered by the same sort key as the DynamoDB items."""

from __future__ import annotations

from typing import TYPE_CHECKING

from groundwork.storage.errors import AlreadyExists
from groundwork.storage.starters import StarterRecord, StarterStore, check_proposals

if TYPE_CHECKING:
    import sqlite3
    from collections.abc import Sequence

    from groundwork.storage.sqlite_db import SQLiteDatabase


class SQLiteStarterStore(StarterStore):
    def __init__(self, database: SQLiteDatabase) -> None:
        self._db = database

    def add(self, starter: StarterRecord) -> StarterRecord:
        import sqlite3

        try:
            with self._db.write() as db:
                _insert(db, starter)
        except sqlite3.IntegrityError as error:
            raise AlreadyExists(f"starter {starter.id}") from error
        return starter

    def remove(self, collection: str, starter_id: str) -> bool:
        with self._db.write() as db:
            cursor = db.execute(
                "DELETE FROM starters WHERE id = ? AND collection = ?", (starter_id, collection)
            )
        return cursor.rowcount > 0

    def list_starters(self, collection: str) -> list[StarterRecord]:
        with self._db.read() as db:
            rows = db.execute(
                "SELECT body FROM starters WHERE collection = ? ORDER BY sort", (collection,)
            ).fetchall()
        return [StarterRecord.model_validate_json(row[0]) for row in rows]

    def replace_proposals(
        self, collection: str, source_id: str, starters: Sequence[StarterRecord]
    ) -> None:
        check_proposals(source_id, starters)
        with self._db.write() as db:
            db.execute(
                "DELETE FROM starters WHERE collection = ? AND source_id = ? "
                "AND origin = 'proposed'",
                (collection, source_id),
            )
            for starter in starters:
                _insert(db, starter)


def _insert(db: sqlite3.Connection, starter: StarterRecord) -> None:
    db.execute(
        "INSERT INTO starters (id, collection, sort, source_id, origin, body) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        (
            starter.id,
            starter.collection,
            starter.sort_key,
            starter.source_id,
            starter.origin,
            starter.model_dump_json(),
        ),
    )
