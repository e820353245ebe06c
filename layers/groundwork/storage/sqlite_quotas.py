"""Quotas in SQLite: the check and the decrement in one ``BEGIN IMMEDIATE`` transaction."""

from __future__ import annotations

from typing import TYPE_CHECKING

from groundwork.storage.errors import QuotaExceeded
from groundwork.storage.quotas import QuotaStore
from groundwork.storage.records import QuotaRecord
from groundwork.storage.sqlite_db import SWEEP_BATCH

if TYPE_CHECKING:
    import sqlite3

    from groundwork.storage.quotas import Charge
    from groundwork.storage.sqlite_db import SQLiteDatabase


class SQLiteQuotaStore(QuotaStore):
    def __init__(self, database: SQLiteDatabase) -> None:
        self._db = database

    def set_quota(
        self, user_id: str, *, questions_left: int | None, credits_left: int | None
    ) -> QuotaRecord:
        with self._db.write() as db:
            quota = _read(db, user_id).model_copy(
                update={"questions_left": questions_left, "credits_left": credits_left}
            )
            _write(db, quota)
        return quota

    def get_quota(self, user_id: str) -> QuotaRecord:
        with self._db.read() as db:
            return _read(db, user_id)

    def consume(
        self, user_id: str, *, questions: int = 1, credits: int = 0, charge: Charge | None = None
    ) -> QuotaRecord:
        with self._db.write() as db:
            if charge is not None and not self._charged(db, user_id, charge):
                return _read(db, user_id)
            quota = _read(db, user_id)
            if quota.questions_left is not None and quota.questions_left < questions:
                raise QuotaExceeded("questions")
            if quota.credits_left is not None and quota.credits_left < credits:
                raise QuotaExceeded("credits")
            quota = _moved(quota, questions, credits)
            _write(db, quota)
        return quota

    def refund(
        self, user_id: str, *, questions: int = 1, credits: int = 0, charge: Charge | None = None
    ) -> QuotaRecord:
        with self._db.write() as db:
            if charge is not None:
                held = db.execute(
                    "DELETE FROM quota_charges WHERE user_id = ? AND request_id = ? AND owner = ? "
                    "AND expiration > ?",
                    (user_id, charge.request_id, charge.owner, self._db.now()),
                ).rowcount
                if not held:
                    return _read(db, user_id)
            quota = _moved(_read(db, user_id), -questions, -credits)
            _write(db, quota)
        return quota

    def _charged(self, db: sqlite3.Connection, user_id: str, charge: Charge) -> bool:
        """Marks the charge as ``charge.owner``'s; False when it was already taken, inside the
        transaction of the consume (a refused consume rolls the mark back)."""
        now = self._db.now()
        db.execute(
            "DELETE FROM quota_charges WHERE rowid IN "
            "(SELECT rowid FROM quota_charges WHERE expiration <= ? LIMIT ?)",
            (now, SWEEP_BATCH),
        )
        taken = db.execute(
            "UPDATE quota_charges SET owner = ? "
            "WHERE user_id = ? AND request_id = ? AND expiration > ?",
            (charge.owner, user_id, charge.request_id, now),
        ).rowcount
        if taken:
            return False
        db.execute(
            "INSERT OR REPLACE INTO quota_charges (user_id, request_id, owner, expiration) "
            "VALUES (?, ?, ?, ?)",
            (user_id, charge.request_id, charge.owner, now + charge.keep_seconds),
        )
        return True


def _moved(quota: QuotaRecord, questions: int, credits: int) -> QuotaRecord:
    """``questions`` and ``credits`` taken from what is left and added to what is used."""
    return quota.model_copy(
        update={
            "questions_left": None
            if quota.questions_left is None
            else quota.questions_left - questions,
            "credits_left": None if quota.credits_left is None else quota.credits_left - credits,
            "questions_used": quota.questions_used + questions,
            "credits_used": quota.credits_used + credits,
        }
    )


def _read(db: sqlite3.Connection, user_id: str) -> QuotaRecord:
    row = db.execute("SELECT body FROM quotas WHERE user_id = ?", (user_id,)).fetchone()
    return QuotaRecord.model_validate_json(row[0]) if row else QuotaRecord(user_id=user_id)


def _write(db: sqlite3.Connection, quota: QuotaRecord) -> None:
    db.execute(
        "INSERT OR REPLACE INTO quotas (user_id, body) VALUES (?, ?)",
        (quota.user_id, quota.model_dump_json()),
    )
