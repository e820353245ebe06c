"""The API function: the same FastAPI app, buffered through Mangum for API Gateway events."""

from __future__ import annotations

from mangum import Mangum

from groundwork.api.app import create_app

handler = Mangum(create_app(), lifespan="auto")
