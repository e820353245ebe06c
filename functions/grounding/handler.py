"""The grounding function: ``groundingConfigs/{config}:check`` behind API Gateway.

It calls the grounding service directly rather than through the FastAPI app: the check needs
neither the retrieval stack nor the app, and leaving them out keeps the cold start short.
"""

from __future__ import annotations

import base64
import json
from typing import Any

from aws_lambda_powertools.logging import correlation_paths
from pydantic import ValidationError

from groundwork.api.schemas.grounding import CheckGroundingRequest, CheckGroundingResponse
from groundwork.errors import ApiError
from groundwork.grounding.factory import get_verifier
from groundwork.grounding.service import check
from groundwork.observability.entry import instrumented, record_support_score
from groundwork.settings import Settings, get_settings
from groundwork.storage.factory import get_stores


def _check(event: dict[str, Any], _context: Any) -> dict[str, Any]:
    path = event.get("path") or ""
    if not path.endswith(":check"):
        return _json(404, ApiError(404, "route.not_found", f"No route POST {path}.").body())
    refused = _refused(event.get("headers") or {}, get_settings())
    if refused is not None:
        return _json(refused.status, refused.body())
    body = event.get("body") or ""
    if event.get("isBase64Encoded"):
        body = base64.b64decode(body).decode("utf-8", errors="replace")
    try:
        request = CheckGroundingRequest.model_validate_json(body)
        response = check(request.to_domain(), get_verifier())
    except ValidationError as exc:
        return _json(400, _invalid(exc).body())
    except ApiError as exc:
        return _json(exc.status, exc.body())
    record_support_score(response.support_score)
    payload = CheckGroundingResponse.from_domain(response).model_dump(
        by_alias=True, exclude_none=True
    )
    return _json(200, payload)


def _refused(headers: dict[str, str], settings: Settings) -> ApiError | None:
    """The app's guard (``groundwork.auth.keys``) with ``GROUNDWORK_REQUIRE_API_KEY``: a key
    as ``Authorization: Bearer`` or ``x-api-key`` that the account store knows."""
    if not settings.require_api_key:
        return None
    lowered = {name.lower(): value for name, value in headers.items()}
    scheme, _, token = lowered.get("authorization", "").partition(" ")
    key = token.strip() if scheme.lower() == "bearer" else lowered.get("x-api-key", "").strip()
    if key and get_stores(settings).accounts.authenticate(key) is not None:
        return None
    return ApiError(
        401,
        "auth.invalid_key",
        "A valid API key is required: send `Authorization: Bearer <key>` or `x-api-key`.",
        type_="authentication_error",
    )


def _invalid(exc: ValidationError) -> ApiError:
    """The same codes as the app's: ``request.invalid_json`` or ``request.invalid``."""
    first = exc.errors()[0]
    if first["type"] == "json_invalid":
        return ApiError(400, "request.invalid_json", "The request body is not valid JSON.")
    param = ".".join(str(part) for part in first["loc"]) or None
    return ApiError(400, "request.invalid", f"{param or 'body'}: {first['msg']}", param=param)


def _json(status: int, payload: dict[str, Any]) -> dict[str, Any]:
    return {
        "statusCode": status,
        "headers": {"Content-Type": "application/json"},
        "body": json.dumps(payload, ensure_ascii=False),
        "isBase64Encoded": False,
    }


handler = instrumented(_check, correlation_id_path=correlation_paths.API_GATEWAY_REST)
