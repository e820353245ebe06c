"""Work done in separate processes against one SQLite file (importable by spawned children)."""

from __future__ import annotations

from pathlib import Path

from groundwork.storage.errors import QuotaExceeded
from groundwork.storage.records import ClaimOutcome
from groundwork.storage.sqlite_db import SQLiteDatabase
from groundwork.storage.sqlite_idempotency import SQLiteIdempotencyStore
from groundwork.storage.sqlite_quotas import SQLiteQuotaStore


def consume_and_claim(path: str, owner: str, attempts: int) -> tuple[int, bool]:
    """Quota consumes that succeeded, and whether this process won the shared request id."""
    database = SQLiteDatabase(Path(path))
    quotas = SQLiteQuotaStore(database)
    granted = 0
    for _ in range(attempts):
        try:
            quotas.consume("u1")
        except QuotaExceeded:
            continue
        granted += 1
    claim = SQLiteIdempotencyStore(database).claim("u1", "r1", owner, lease_seconds=60)
    database.close()
    return granted, claim.outcome is ClaimOutcome.CLAIMED
