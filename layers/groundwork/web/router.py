"""Serves the page at ``/`` and its assets at ``/static/{name}``, from inside the package.

Only the files shipped in ``static/`` are served, by name: nothing else on disk is reachable,
and any other path under ``/static`` gets the API's JSON 404.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import FileResponse

from groundwork.errors import ApiError

STATIC = Path(__file__).resolve().parent / "static"

_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
}

router = APIRouter(include_in_schema=False)


def _asset(name: str) -> FileResponse:
    path = STATIC / name
    media_type = _TYPES.get(path.suffix)
    if media_type is None or path.parent != STATIC or not path.is_file():
        raise ApiError(404, "route.not_found", f"No asset `{name}`.")
    # no-cache: revalidated on every load, so that a new release is never mixed with old modules.
    return FileResponse(path, media_type=media_type, headers={"Cache-Control": "no-cache"})


@router.get("/")
def page() -> FileResponse:
    return _asset("index.html")


@router.get("/static/{name}")
def asset(name: str) -> FileResponse:
    return _asset(name)
