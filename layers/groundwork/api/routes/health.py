"""Liveness."""

from __future__ import annotations

from fastapi import APIRouter

from groundwork import __version__
from groundwork.api.schemas.errors import error_responses

router = APIRouter(tags=["health"], responses=error_responses(backends=False))


@router.get("/health")
def health() -> dict[str, str]:
    return {"status": "ok", "version": __version__}
