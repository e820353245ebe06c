"""The error body every 4xx and 5xx has, and the ``responses=`` that document them per route."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field


class ErrorDetail(BaseModel):
    message: str
    type: str = Field(..., description="`invalid_request_error`, `authentication_error`, …")
    param: str | None = Field(..., description="The request field at fault, if one is.")
    code: str = Field(..., description="`<entity>.<reason>`, e.g. `request.too_large`.")


class ErrorResponse(BaseModel):
    """OpenAI's error shape."""

    error: ErrorDetail


_MEANINGS = {
    400: "Invalid request: a field, its JSON, its text or its question (`code` says which).",
    401: "No valid API key.",
    403: "The key's user may not see a collection named.",
    404: "Not found (a collection, conversation, question or model).",
    408: "The request body did not arrive in time (`request.timeout`).",
    409: "The `request_id` is in use: another question, other options, or still being answered.",
    413: "The request body is over the size limit (`request.too_large`).",
    429: "The user's questions or credits are exhausted.",
    502: "The answer model failed.",
    503: "A backend is unavailable (`storage.unavailable`, `retrieval.unavailable`); retry "
    "after `Retry-After` seconds.",
    504: "The answer model timed out.",
}
#: What any route may answer before it runs: its body is read under a size and time limit.
BODY_LIMITS = (408, 413)


def error_responses(*statuses: int, backends: bool = True) -> dict[int | str, dict[str, Any]]:
    """OpenAPI ``responses`` for these statuses, each with the error body; with ``backends``
    (every route that may read a key, storage or the index) 503 too."""
    statuses = (*statuses, 503) if backends else statuses
    return {
        status: {"model": ErrorResponse, "description": _MEANINGS[status]}
        for status in sorted({*statuses, *BODY_LIMITS})
    }


def without_validation_errors(schema: dict[str, Any]) -> dict[str, Any]:
    """FastAPI documents a 422 on every route with parameters; this API answers invalid
    requests with 400 (``request.invalid``), so that 422 and its schemas are dropped."""
    for operations in schema.get("paths", {}).values():
        for operation in operations.values():
            operation.get("responses", {}).pop("422", None)
    schemas = schema.get("components", {}).get("schemas", {})
    schemas.pop("HTTPValidationError", None)
    schemas.pop("ValidationError", None)
    return schema
