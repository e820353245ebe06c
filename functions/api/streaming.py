"""The app as the chat function serves it under Lambda Web Adapter (``run.sh``): the same app,
with per-request logs and metrics, since no Python handler is there to be instrumented."""

from __future__ import annotations

from typing import TYPE_CHECKING

from groundwork.api.app import create_app as create_groundwork_app
from groundwork.observability.asgi import RequestTelemetry

if TYPE_CHECKING:
    from fastapi import FastAPI


def create_app() -> FastAPI:
    app = create_groundwork_app()
    app.add_middleware(RequestTelemetry)
    return app
