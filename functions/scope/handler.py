"""The scope function: ``POST /v1/scope/resolve`` behind API Gateway, buffered through Mangum.

It serves only the scope route of the app (with the app's error handling and settings), so
a scope check from a UI does not pay for the chat routes' imports.
"""

from __future__ import annotations

from aws_lambda_powertools.logging import correlation_paths
from fastapi import FastAPI
from mangum import Mangum

from groundwork.api import errors
from groundwork.api.routes import scope
from groundwork.observability.entry import instrumented
from groundwork.settings import get_settings

app = FastAPI(title="Groundwork scope resolution")
app.state.settings = get_settings()
errors.install(app)
app.include_router(scope.router)

handler = instrumented(
    Mangum(app, lifespan="off"), correlation_id_path=correlation_paths.API_GATEWAY_REST
)
