"""Logs and metrics per HTTP request when Lambda Web Adapter serves the app (the chat function).

Under the Web Adapter there is no Python handler for Powertools' decorators to wrap: uvicorn
serves the app and the adapter turns each invocation into an HTTP request. This middleware does
the decorators' work per request instead: the API Gateway request id (forwarded by the adapter
in ``x-amzn-request-context``) becomes the correlation id, one JSON access log line is written,
and ``Requests``/``Latency`` (with the request's other metrics, such as ``SupportScore``) are
flushed as EMF, with the function's name as a dimension, when the response, streamed or not,
has ended.
"""

from __future__ import annotations

import json
import os
import time
from typing import TYPE_CHECKING, Any

from groundwork.observability.tools import FUNCTION_DIMENSION, get_logger, get_metrics

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Message, Receive, Scope, Send

#: The header in which Lambda Web Adapter forwards API Gateway's request context.
CONTEXT_HEADER = b"x-amzn-request-context"


class RequestTelemetry:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        from aws_lambda_powertools.metrics import MetricUnit

        logger, metrics = get_logger(), get_metrics()
        logger.set_correlation_id(_request_id(scope))
        started = time.perf_counter()
        status = 500  # unless the app starts a response

        async def sending(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
            await send(message)

        try:
            await self.app(scope, receive, sending)
        finally:
            elapsed_ms = (time.perf_counter() - started) * 1000
            logger.info(
                "request",
                method=scope["method"],
                path=scope["path"],
                status=status,
                latency_ms=round(elapsed_ms, 1),
            )
            metrics.add_dimension(
                FUNCTION_DIMENSION, os.environ.get("AWS_LAMBDA_FUNCTION_NAME", "local")
            )
            metrics.add_metric("Requests", MetricUnit.Count, 1)
            metrics.add_metric("Latency", MetricUnit.Milliseconds, elapsed_ms)
            metrics.flush_metrics()


def _request_id(scope: Scope) -> str | None:
    for name, value in scope["headers"]:
        if name == CONTEXT_HEADER:
            try:
                context: Any = json.loads(value)
            except ValueError:
                return None
            request_id = context.get("requestId") if isinstance(context, dict) else None
            return request_id if isinstance(request_id, str) else None
    return None
