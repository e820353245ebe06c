"""SQLite failures of the disk or of the lock, not of the statement: a full disk, an I/O error,
a lock held past the busy timeout. They are the backend being unavailable, reported as such
(503 with a code), whereas any other error of SQLite is a bug and stays a 500."""

from __future__ import annotations

import sqlite3
from contextlib import contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

    from groundwork.errors import BackendUnavailable

#: Primary result codes (extended ones, ``SQLITE_IOERR_WRITE``, start with them).
_UNAVAILABLE = (
    "SQLITE_FULL",
    "SQLITE_IOERR",
    "SQLITE_BUSY",
    "SQLITE_LOCKED",
    "SQLITE_CANTOPEN",
    "SQLITE_READONLY",
    "SQLITE_NOMEM",
    "SQLITE_PROTOCOL",
)


@contextmanager
def reported_as(unavailable: Callable[[str], BackendUnavailable], what: str) -> Iterator[None]:
    """Turn the block's disk and lock failures into ``unavailable("<what>: <reason>")``."""
    try:
        yield
    except sqlite3.OperationalError as error:
        if error.sqlite_errorname.startswith(_UNAVAILABLE):
            raise unavailable(f"{what}: {error}") from error
        raise
