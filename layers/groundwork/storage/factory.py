"""Builds the configured storage once per settings object."""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

from groundwork.settings import Settings, get_settings

if TYPE_CHECKING:
    from groundwork.storage.base import Storage


@lru_cache(maxsize=4)
def get_storage(settings: Settings | None = None) -> Storage:
    settings = settings or get_settings()
    match settings.storage:
        case "sqlite":
            from groundwork.storage.sqlite import SQLiteStorage

            return SQLiteStorage(settings.state_path)
