"""State is its owner's alone: the data directory is created 0700 and its files 0600."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path


def create_private(path: Path) -> None:
    """Create the file (0600) and its directory (0700) when missing, before SQLite opens it:
    SQLite gives the file's ``-wal`` and ``-shm`` companions its mode. An existing file or
    directory keeps the mode it has."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    # O_CREAT without O_TRUNC: an existing file is opened, unchanged.
    os.close(os.open(path, os.O_WRONLY | os.O_CREAT, 0o600))
