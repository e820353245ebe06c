"""What storage raises; the chat layer turns these into ``ApiError`` codes."""

from __future__ import annotations

from groundwork.errors import BackendUnavailable


class StorageError(Exception):
    """Base of the storage failures callers can act on."""


class AlreadyExists(StorageError):
    """A create found the record there already."""


class NotFound(StorageError):
    """A record the operation needs is missing (or belongs to another parent)."""


class NotOwner(StorageError):
    """An idempotency record is held by another owner now (expired and taken over)."""


class QuotaExceeded(StorageError):
    """A consume was refused; ``reason`` is ``questions`` or ``credits``. Nothing changed."""

    def __init__(self, reason: str) -> None:
        super().__init__(f"{reason} exhausted")
        self.reason = reason


class StorageUnavailable(StorageError, BackendUnavailable):
    """The backend kept failing (throttling, timeouts) after every retry, or its circuit is
    open; 503 ``storage.unavailable``."""

    code = "storage.unavailable"
    what = "The service's storage"
