"""API Gateway events answered without the FastAPI app, for functions that must start fast.

The same error shape, codes and key rule as the app (``groundwork.errors.invalid_request``,
``groundwork.auth.headers``), with none of the app's imports.
"""

from __future__ import annotations

import base64
import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from groundwork.errors import ApiError, BackendUnavailable
    from groundwork.settings import Settings
    from groundwork.storage.records import UserRecord


def body_of(event: dict[str, Any]) -> str:
    """The event's body as text; 400 ``request.invalid_unicode`` unless it is UTF-8 without a
    lone surrogate (``groundwork.request_text``), as the app refuses it."""
    from groundwork.request_text import check_body

    body = event.get("body") or ""
    # A body API Gateway passed as text may still hold lone surrogates (its JSON escapes).
    raw = (
        base64.b64decode(body)
        if event.get("isBase64Encoded")
        else str(body).encode("utf-8", "surrogatepass")
    )
    check_body(raw)
    return raw.decode("utf-8-sig")


def user_of(event: dict[str, Any], settings: Settings) -> UserRecord:
    """The key's user; 401 ``auth.invalid_key`` without a valid key."""
    from groundwork.auth.headers import user_for

    return user_for(event.get("headers") or {}, settings)


def json_response(
    status: int, payload: Any, headers: dict[str, str] | None = None
) -> dict[str, Any]:
    return {
        "statusCode": status,
        "headers": {"Content-Type": "application/json", **(headers or {})},
        "body": json.dumps(payload, ensure_ascii=False),
        "isBase64Encoded": False,
    }


def error_response(error: ApiError | BackendUnavailable) -> dict[str, Any]:
    """The error's response; a backend that is down is 503 with its code, as in the app."""
    from groundwork.errors import BackendUnavailable, unavailable

    if isinstance(error, BackendUnavailable):
        error = unavailable(error)
    return json_response(error.status, error.body(), error.headers)
