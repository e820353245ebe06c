"""The grounding function: ``groundingConfigs/{config}:check`` behind API Gateway.

It calls the grounding service directly rather than through the FastAPI app: the check needs
neither the retrieval stack nor the app, and leaving them out keeps the cold start short.
"""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools.logging import correlation_paths
from pydantic import ValidationError

from groundwork.api.schemas.grounding import CheckGroundingRequest, CheckGroundingResponse
from groundwork.errors import ApiError, BackendUnavailable, invalid_request
from groundwork.grounding.factory import get_verifier
from groundwork.grounding.service import check
from groundwork.http_events import (
    body_of,
    error_response,
    json_response,
    user_of,
)
from groundwork.observability.entry import instrumented, record_support_score
from groundwork.settings import get_settings


def _check(event: dict[str, Any], _context: Any) -> dict[str, Any]:
    path = event.get("path") or ""
    if not path.endswith(":check"):
        return error_response(ApiError(404, "route.not_found", f"No route POST {path}."))
    settings = get_settings()
    try:
        if settings.require_api_key:
            user_of(event, settings)
        request = CheckGroundingRequest.model_validate_json(body_of(event))
        response = check(request.to_domain(), get_verifier())
    except ValidationError as exc:
        return error_response(invalid_request(exc.errors()))
    except (ApiError, BackendUnavailable) as exc:
        return error_response(exc)
    record_support_score(response.support_score)
    payload = CheckGroundingResponse.from_domain(response).model_dump(
        by_alias=True, exclude_none=True
    )
    return json_response(200, payload)


handler = instrumented(_check, correlation_id_path=correlation_paths.API_GATEWAY_REST)
