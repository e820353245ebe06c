"""The scope function: ``POST /v1/scope/resolve`` behind API Gateway.

It answers the event without the FastAPI app (same codes, same error shape), so that a scope
check from a UI starts in a fraction of the app's cold start.
"""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools.logging import correlation_paths
from pydantic import ValidationError

from groundwork.api.schemas.chat import ScopeRequest
from groundwork.api.scope_resolution import resolve_request
from groundwork.errors import ApiError, BackendUnavailable, invalid_request
from groundwork.http_events import (
    body_of,
    error_response,
    json_response,
    user_of,
)
from groundwork.observability.entry import instrumented
from groundwork.settings import get_settings


def _resolve(event: dict[str, Any], _context: Any) -> dict[str, Any]:
    settings = get_settings()
    try:
        user = user_of(event, settings)
        body = ScopeRequest.model_validate_json(body_of(event))
        resolved = resolve_request(body, user, settings)
    except ValidationError as exc:
        return error_response(invalid_request(exc.errors()))
    except (ApiError, BackendUnavailable) as exc:
        return error_response(exc)
    return json_response(200, resolved.model_dump(mode="json"))


handler = instrumented(_resolve, correlation_id_path=correlation_paths.API_GATEWAY_REST)
