"""API Gateway events answered without the FastAPI app, for functions that must start fast.

The same error shape, codes and key rule as the app (``groundwork.errors.invalid_request``,
``groundwork.auth.headers``), with none of the app's imports.
"""

from __future__ import annotations

import base64
import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from groundwork.errors import ApiError
    from groundwork.settings import Settings
    from groundwork.storage.records import UserRecord


def body_of(event: dict[str, Any]) -> str:
    body = event.get("body") or ""
    if event.get("isBase64Encoded"):
        return base64.b64decode(body).decode("utf-8", errors="replace")
    return str(body)


def user_of(event: dict[str, Any], settings: Settings) -> UserRecord:
    """The key's user; 401 ``auth.invalid_key`` without a valid key."""
    from groundwork.auth.headers import user_for

    return user_for(event.get("headers") or {}, settings)


def json_response(status: int, payload: Any) -> dict[str, Any]:
    return {
        "statusCode": status,
        "headers": {"Content-Type": "application/json"},
        "body": json.dumps(payload, ensure_ascii=False),
        "isBase64Encoded": False,
    }


def error_response(error: ApiError) -> dict[str, Any]:
    return json_response(error.status, error.body())
