"""The one SQLite file every embedded store shares: WAL, one connection, write transactions.

Check-and-set runs inside ``BEGIN IMMEDIATE``: the write lock is taken before the read, so
the read cannot go stale before the write, whether the competitor is another thread (the
lock below) or another process (SQLite's lock, waited for up to ``busy_timeout``).
"""

from __future__ import annotations

import sqlite3
import threading
from contextlib import contextmanager
from typing import TYPE_CHECKING

from groundwork.private_files import create_private
from groundwork.sqlite_faults import reported_as
from groundwork.sqlite_transaction import committed
from groundwork.storage.clock import system_clock
from groundwork.storage.errors import StorageUnavailable

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

    from groundwork.storage.clock import Clock

#: Seconds a writer waits for another process's transaction before failing.
_BUSY_TIMEOUT = 30.0
#: Expired rows deleted per write of a table with expiring rows, so sweeping stays cheap.
SWEEP_BATCH = 100

_SCHEMA = """
CREATE TABLE IF NOT EXISTS sources (
    id TEXT PRIMARY KEY,
    collection TEXT NOT NULL,
    body TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS sources_collection ON sources(collection);
CREATE TABLE IF NOT EXISTS users (
    id TEXT PRIMARY KEY,
    body TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS api_keys (
    key_hash TEXT PRIMARY KEY,
    user_id TEXT NOT NULL REFERENCES users(id),
    body TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS collections (
    name TEXT PRIMARY KEY,
    body TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS grants (
    user_id TEXT NOT NULL REFERENCES users(id),
    collection TEXT NOT NULL REFERENCES collections(name),
    body TEXT NOT NULL,
    PRIMARY KEY (user_id, collection)
);
CREATE TABLE IF NOT EXISTS conversations (
    id TEXT PRIMARY KEY,
    body TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS conversations_user ON conversations(
    json_extract(body, '$.user_id'), json_extract(body, '$.updated'), id
);
CREATE TABLE IF NOT EXISTS questions (
    id INTEGER PRIMARY KEY,
    conversation_id TEXT NOT NULL REFERENCES conversations(id),
    seq INTEGER NOT NULL,
    body TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS questions_conversation ON questions(conversation_id, seq);
CREATE TABLE IF NOT EXISTS idempotency (
    user_id TEXT NOT NULL,
    request_id TEXT NOT NULL,
    expiration INTEGER NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY (user_id, request_id)
);
CREATE INDEX IF NOT EXISTS idempotency_expiration ON idempotency(expiration);
CREATE TABLE IF NOT EXISTS quota_charges (
    user_id TEXT NOT NULL,
    request_id TEXT NOT NULL,
    owner TEXT NOT NULL,
    expiration INTEGER NOT NULL,
    PRIMARY KEY (user_id, request_id)
);
CREATE INDEX IF NOT EXISTS quota_charges_expiration ON quota_charges(expiration);
CREATE TABLE IF NOT EXISTS cache (
    key TEXT PRIMARY KEY,
    expiration INTEGER NOT NULL,
    body TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS cache_expiration ON cache(expiration);
CREATE TABLE IF NOT EXISTS quotas (
    user_id TEXT PRIMARY KEY,
    body TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS starters (
    id TEXT PRIMARY KEY,
    collection TEXT NOT NULL,
    sort TEXT NOT NULL,
    source_id TEXT,
    origin TEXT NOT NULL,
    body TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS starters_collection ON starters(collection, sort);
"""


class SQLiteDatabase:
    """One connection guarded by a lock; autocommit outside explicit transactions."""

    def __init__(self, path: Path, clock: Clock = system_clock) -> None:
        create_private(path)
        self.path = path
        self._clock = clock
        self._lock = threading.RLock()
        self._db = sqlite3.connect(
            path, check_same_thread=False, isolation_level=None, timeout=_BUSY_TIMEOUT
        )
        self._db.execute("PRAGMA journal_mode=WAL")
        # In WAL mode NORMAL loses at most the last commits on power loss, never consistency.
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute("PRAGMA foreign_keys=ON")
        with self.write() as db:
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    db.execute(statement)

    def now(self) -> int:
        return int(self._clock())

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """A transaction holding the write lock from its first statement; rolled back on error.
        A full disk or a lock held too long is ``StorageUnavailable``."""
        with self._lock, reported_as(StorageUnavailable, "the state file"), committed(self._db):
            yield self._db

    @contextmanager
    def read(self) -> Iterator[sqlite3.Connection]:
        """A read transaction: its statements see one snapshot, even while others write."""
        with self._lock, reported_as(StorageUnavailable, "the state file"):
            self._db.execute("BEGIN")
            try:
                yield self._db
            finally:
                self._db.execute("COMMIT")

    def close(self) -> None:
        with self._lock:
            self._db.close()
