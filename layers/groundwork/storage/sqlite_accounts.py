"""Users, API key hashes, collections and grants in SQLite."""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING

from groundwork.storage.accounts import AccountStore
from groundwork.storage.errors import AlreadyExists, NotFound
from groundwork.storage.records import ApiKeyRecord, CollectionRecord, GrantRecord, UserRecord

if TYPE_CHECKING:
    from groundwork.storage.sqlite_db import SQLiteDatabase


class SQLiteAccountStore(AccountStore):
    def __init__(self, database: SQLiteDatabase) -> None:
        self._db = database

    def create_user(self, user_id: str, name: str) -> UserRecord:
        user = UserRecord(id=user_id, name=name, created=self._now())
        try:
            with self._db.write() as db:
                db.execute(
                    "INSERT INTO users (id, body) VALUES (?, ?)", (user.id, user.model_dump_json())
                )
        except sqlite3.IntegrityError as error:
            raise AlreadyExists(f"user {user_id}") from error
        return user

    def get_user(self, user_id: str) -> UserRecord | None:
        with self._db.read() as db:
            row = db.execute("SELECT body FROM users WHERE id = ?", (user_id,)).fetchone()
        return UserRecord.model_validate_json(row[0]) if row else None

    def revoke_api_key(self, key_hash: str) -> bool:
        with self._db.write() as db:
            cursor = db.execute("DELETE FROM api_keys WHERE key_hash = ?", (key_hash,))
        return cursor.rowcount > 0

    def create_collection(self, name: str, title: str | None = None) -> CollectionRecord:
        collection = CollectionRecord(name=name, title=title, created=self._now())
        try:
            with self._db.write() as db:
                db.execute(
                    "INSERT INTO collections (name, body) VALUES (?, ?)",
                    (name, collection.model_dump_json()),
                )
        except sqlite3.IntegrityError as error:
            raise AlreadyExists(f"collection {name}") from error
        return collection

    def get_collection(self, name: str) -> CollectionRecord | None:
        with self._db.read() as db:
            row = db.execute("SELECT body FROM collections WHERE name = ?", (name,)).fetchone()
        return CollectionRecord.model_validate_json(row[0]) if row else None

    def list_collections(self) -> list[CollectionRecord]:
        with self._db.read() as db:
            rows = db.execute("SELECT body FROM collections ORDER BY name").fetchall()
        return [CollectionRecord.model_validate_json(r[0]) for r in rows]

    def _put_grant(self, record: GrantRecord) -> None:
        try:
            with self._db.write() as db:
                db.execute(
                    "INSERT INTO grants (user_id, collection, body) VALUES (?, ?, ?) "
                    "ON CONFLICT (user_id, collection) DO UPDATE SET body = excluded.body",
                    (record.user_id, record.collection, record.model_dump_json()),
                )
        except sqlite3.IntegrityError as error:  # a foreign key: no such user or collection
            raise NotFound(f"user {record.user_id} or collection {record.collection}") from error

    def revoke(self, user_id: str, collection: str) -> bool:
        with self._db.write() as db:
            cursor = db.execute(
                "DELETE FROM grants WHERE user_id = ? AND collection = ?", (user_id, collection)
            )
        return cursor.rowcount > 0

    def grants(self, user_id: str) -> list[GrantRecord]:
        with self._db.read() as db:
            rows = db.execute(
                "SELECT body FROM grants WHERE user_id = ? ORDER BY collection", (user_id,)
            ).fetchall()
        return [GrantRecord.model_validate_json(r[0]) for r in rows]

    def can_see(self, user_id: str, collection: str) -> bool:
        with self._db.read() as db:
            row = db.execute(
                "SELECT 1 FROM grants WHERE user_id = ? AND collection = ?", (user_id, collection)
            ).fetchone()
        return row is not None

    def _put_api_key(self, record: ApiKeyRecord) -> None:
        try:
            with self._db.write() as db:
                db.execute(
                    "INSERT INTO api_keys (key_hash, user_id, body) VALUES (?, ?, ?)",
                    (record.key_hash, record.user_id, record.model_dump_json()),
                )
        except sqlite3.IntegrityError as error:
            raise NotFound(f"user {record.user_id}") from error

    def _get_api_key(self, key_hash: str) -> ApiKeyRecord | None:
        with self._db.read() as db:
            row = db.execute("SELECT body FROM api_keys WHERE key_hash = ?", (key_hash,)).fetchone()
        return ApiKeyRecord.model_validate_json(row[0]) if row else None

    def _now(self) -> int:
        return self._db.now()
