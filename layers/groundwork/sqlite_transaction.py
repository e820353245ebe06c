"""One SQLite transaction, committed whole or rolled back, on a connection in autocommit mode
(``isolation_level=None``), where the statements say where a transaction starts."""

from __future__ import annotations

from contextlib import contextmanager
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    import sqlite3
    from collections.abc import Iterator


@contextmanager
def committed(
    db: sqlite3.Connection, begin: Literal["BEGIN", "BEGIN IMMEDIATE"] = "BEGIN IMMEDIATE"
) -> Iterator[sqlite3.Connection]:
    """``BEGIN IMMEDIATE`` takes the write lock before the first read, so that what is read
    (a check before a change) still holds when the change is written."""
    db.execute(begin)
    try:
        yield db
        db.execute("COMMIT")
    except BaseException:
        # SQLite has rolled back already after some errors (a full disk): a second ROLLBACK
        # would fail and hide the first error.
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise
