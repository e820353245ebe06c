"""The FastAPI application factory."""

from __future__ import annotations

from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

from fastapi import Depends, FastAPI

from groundwork import __version__
from groundwork.api import errors
from groundwork.api.request_body import RequestBodyLimits
from groundwork.api.routes import (
    chat,
    collections,
    completions,
    conversation_list,
    conversations,
    grounding,
    health,
    models,
    scope,
    search,
    starters,
)
from groundwork.api.schemas.errors import without_validation_errors
from groundwork.api.security_headers import SecurityHeaders
from groundwork.auth.keys import require_key_when_configured
from groundwork.settings import Settings, get_settings
from groundwork.web.router import router as web_router

if TYPE_CHECKING:
    from collections.abc import AsyncIterator


def create_app(settings: Settings | None = None, *, docs_aside: bool = False) -> FastAPI:
    """The service; ``docs_aside`` seeds the docs beside it instead of before it answers
    (``api.startup.start``)."""
    settings = settings or get_settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        from groundwork.api.startup import start

        app.state.seeding = start(settings, docs_aside=docs_aside)
        yield

    app = FastAPI(
        title="Groundwork",
        version=__version__,
        description="Answers from your documents with verifiable citations, and grounding checks.",
        lifespan=lifespan,
    )
    app.state.settings = settings
    app.openapi = lambda: _openapi(app)  # type: ignore[method-assign]
    errors.install(app)
    app.add_middleware(
        RequestBodyLimits,
        max_bytes=settings.request_max_bytes,
        check_max_bytes=settings.check_request_max_bytes,
        timeout_s=settings.request_body_timeout_s,
    )
    # Added last, so outermost: the limits' own 413 and 408 carry the headers too.
    docs_pages = (app.docs_url, app.redoc_url, app.swagger_ui_oauth2_redirect_url)
    app.add_middleware(SecurityHeaders, exempt=frozenset(p for p in docs_pages if p))
    app.include_router(health.router)
    # Open unless GROUNDWORK_REQUIRE_API_KEY; native chat always needs a key (docs/chat.md).
    keyed = [Depends(require_key_when_configured)]
    app.include_router(completions.router, dependencies=keyed)
    app.include_router(search.router, dependencies=keyed)
    app.include_router(models.router, dependencies=keyed)
    app.include_router(grounding.router, dependencies=keyed)
    app.include_router(chat.router)
    app.include_router(collections.router)
    app.include_router(conversation_list.router)
    app.include_router(conversations.router)
    app.include_router(scope.router)
    app.include_router(starters.router)
    # The reading page at `/` (docs/web.md); it calls the API like any other client.
    app.include_router(web_router)
    return app


def _openapi(app: FastAPI) -> dict[str, Any]:
    if app.openapi_schema is None:
        app.openapi_schema = without_validation_errors(FastAPI.openapi(app))
    return app.openapi_schema
