"""Every error a client sees has the OpenAI shape: ``{"error": {message, type, param, code}}``."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException

from groundwork.errors import ApiError, BackendUnavailable, invalid_request, unavailable

if TYPE_CHECKING:
    from fastapi import FastAPI, Request

logger = logging.getLogger(__name__)

_HTTP_CODES = {
    404: "route.not_found",
    405: "method.not_allowed",
    413: "request.too_large",
    415: "request.unsupported_media_type",
}


def install(app: FastAPI) -> None:
    app.add_exception_handler(ApiError, _api_error)
    app.add_exception_handler(BackendUnavailable, _backend_unavailable)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(HTTPException, _http_error)
    app.add_exception_handler(Exception, _internal_error)


def render(error: ApiError) -> JSONResponse:
    return JSONResponse(error.body(), status_code=error.status, headers=error.headers)


async def _api_error(_: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, ApiError)
    return render(exc)


async def _backend_unavailable(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, BackendUnavailable)
    logger.warning("%s on %s %s: %s", exc.code, request.method, request.url.path, exc)
    return render(unavailable(exc))


async def _validation_error(_: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    return render(invalid_request(exc.errors()))


async def _http_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, HTTPException)
    code = _HTTP_CODES.get(exc.status_code, "request.invalid")
    if exc.status_code == 404:
        message = f"No route {request.method} {request.url.path}."
    elif exc.status_code == 405:
        message = f"Method {request.method} is not allowed on {request.url.path}."
    else:
        message = str(exc.detail)
    response = render(ApiError(exc.status_code, code, message))
    if exc.headers:
        response.headers.update(exc.headers)
    return response


async def _internal_error(request: Request, exc: Exception) -> JSONResponse:
    logger.exception("unhandled error on %s %s", request.method, request.url.path, exc_info=exc)
    return render(ApiError(500, "internal.error", "The server failed to handle this request."))
