"""Idempotency records in SQLite; every check-and-set is one ``BEGIN IMMEDIATE`` transaction."""

from __future__ import annotations

from typing import TYPE_CHECKING

from groundwork.storage.errors import NotOwner
from groundwork.storage.idempotency import IdempotencyStore, claim_of, completed, in_progress
from groundwork.storage.records import (
    Claim,
    ClaimOutcome,
    IdempotencyRecord,
    IdempotencyStatus,
)
from groundwork.storage.sqlite_db import SWEEP_BATCH

if TYPE_CHECKING:
    import sqlite3

    from groundwork.storage.records import Completion
    from groundwork.storage.sqlite_db import SQLiteDatabase


class SQLiteIdempotencyStore(IdempotencyStore):
    def __init__(self, database: SQLiteDatabase) -> None:
        self._db = database

    def claim(
        self,
        user_id: str,
        request_id: str,
        owner: str,
        *,
        lease_seconds: int,
        payload_hash: str | None = None,
    ) -> Claim:
        now = self._db.now()
        with self._db.write() as db:
            existing = _read(db, user_id, request_id)
            if existing is not None and existing.expiration > now:
                return claim_of(existing, owner, now)
            db.execute(
                "DELETE FROM idempotency WHERE rowid IN "
                "(SELECT rowid FROM idempotency WHERE expiration <= ? LIMIT ?)",
                (now, SWEEP_BATCH),
            )
            record = in_progress(user_id, request_id, owner, lease_seconds, payload_hash, now)
            _write(db, record)
        return Claim(outcome=ClaimOutcome.CLAIMED, record=record)

    def get(self, user_id: str, request_id: str) -> IdempotencyRecord | None:
        with self._db.read() as db:
            record = _read(db, user_id, request_id)
        return record if record and record.expiration > self._db.now() else None

    def renew(self, user_id: str, request_id: str, owner: str, *, lease_seconds: int) -> None:
        with self._db.write() as db:
            record = _owned(db, user_id, request_id, owner)
            _write(db, record.model_copy(update={"expiration": self._db.now() + lease_seconds}))

    def complete(self, completion: Completion) -> IdempotencyRecord:
        with self._db.write() as db:
            return complete_in(db, completion, self._db.now())

    def release(self, user_id: str, request_id: str, owner: str) -> bool:
        with self._db.write() as db:
            record = _read(db, user_id, request_id)
            if record is None or record.owner != owner:
                return False
            if record.status is not IdempotencyStatus.IN_PROGRESS:
                return False
            db.execute(
                "DELETE FROM idempotency WHERE user_id = ? AND request_id = ?",
                (user_id, request_id),
            )
        return True


def complete_in(db: sqlite3.Connection, completion: Completion, now: int) -> IdempotencyRecord:
    """Inside the caller's transaction: ``NotOwner`` unless it is the owner's in-progress record."""
    record = completed(
        _owned(db, completion.user_id, completion.request_id, completion.owner),
        completion.response,
        completion.retention_seconds,
        now,
    )
    _write(db, record)
    return record


def _owned(db: sqlite3.Connection, user_id: str, request_id: str, owner: str) -> IdempotencyRecord:
    record = _read(db, user_id, request_id)
    if (
        record is None
        or record.owner != owner
        or record.status is not IdempotencyStatus.IN_PROGRESS
    ):
        raise NotOwner(f"request {request_id} is not in progress for {owner}")
    return record


def _read(db: sqlite3.Connection, user_id: str, request_id: str) -> IdempotencyRecord | None:
    row = db.execute(
        "SELECT body FROM idempotency WHERE user_id = ? AND request_id = ?", (user_id, request_id)
    ).fetchone()
    return IdempotencyRecord.model_validate_json(row[0]) if row else None


def _write(db: sqlite3.Connection, record: IdempotencyRecord) -> None:
    db.execute(
        "INSERT OR REPLACE INTO idempotency (user_id, request_id, expiration, body) "
        "VALUES (?, ?, ?, ?)",
        (record.user_id, record.request_id, record.expiration, record.model_dump_json()),
    )
