"""The FastAPI application factory."""

from __future__ import annotations

from contextlib import asynccontextmanager
from typing import TYPE_CHECKING

from fastapi import FastAPI

from groundwork import __version__
from groundwork.api import errors
from groundwork.api.routes import completions, health
from groundwork.settings import Settings, get_settings

if TYPE_CHECKING:
    from collections.abc import AsyncIterator


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or get_settings()

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        if settings.bootstrap_docs and settings.docs_dir is not None:
            from groundwork.ingest.bootstrap import ingest_docs_if_empty
            from groundwork.retrieval.factory import get_retriever
            from groundwork.storage.factory import get_storage

            ingest_docs_if_empty(
                get_retriever(settings),
                get_storage(settings),
                settings.docs_dir,
                settings.default_collection,
            )
        yield

    app = FastAPI(
        title="Groundwork",
        version=__version__,
        description="Answers from your documents with verifiable citations, and grounding checks.",
        lifespan=lifespan,
    )
    app.state.settings = settings
    errors.install(app)
    app.include_router(health.router)
    app.include_router(completions.router)
    return app
