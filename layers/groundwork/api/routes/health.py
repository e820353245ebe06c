"""Liveness, and the docs a first start is still indexing."""

from __future__ import annotations

from typing import TYPE_CHECKING

from fastapi import APIRouter, Request

from groundwork import __version__
from groundwork.api.schemas.errors import error_responses
from groundwork.api.schemas.health import Health, Indexing

if TYPE_CHECKING:
    from groundwork.api.startup import Seeding

router = APIRouter(tags=["health"], responses=error_responses(backends=False))


@router.get("/health", response_model_exclude_none=True)
def health(request: Request) -> Health:
    seeding: Seeding | None = getattr(request.app.state, "seeding", None)
    running = seeding.running() if seeding else None
    if seeding is None or running is None:
        return Health(version=__version__)
    done, documents = running
    indexing = Indexing(collection=seeding.collection, documents=documents, done=done)
    return Health(version=__version__, indexing=indexing)
