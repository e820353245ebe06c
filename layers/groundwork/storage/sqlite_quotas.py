"""Quotas in SQLite: the check and the decrement in one ``BEGIN IMMEDIATE`` transaction."""

from __future__ import annotations

from typing import TYPE_CHECKING

from groundwork.storage.errors import QuotaExceeded
from groundwork.storage.quotas import QuotaStore
from groundwork.storage.records import QuotaRecord

if TYPE_CHECKING:
    import sqlite3

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

    def consume(self, user_id: str, *, questions: int = 1, credits: int = 0) -> QuotaRecord:
        with self._db.write() as db:
            quota = _read(db, user_id)
            if quota.questions_left is not None and quota.questions_left < questions:
                raise QuotaExceeded("questions")
            if quota.credits_left is not None and quota.credits_left < credits:
                raise QuotaExceeded("credits")
            quota = _moved(quota, questions, credits)
            _write(db, quota)
        return quota

    def refund(self, user_id: str, *, questions: int = 1, credits: int = 0) -> QuotaRecord:
        with self._db.write() as db:
            quota = _moved(_read(db, user_id), -questions, -credits)
            _write(db, quota)
        return quota


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
