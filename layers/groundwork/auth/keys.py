"""API keys from request headers, and the FastAPI dependencies that turn them into users.

A key comes as ``Authorization: Bearer <key>`` (what OpenAI clients send) or ``x-api-key``.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from groundwork.api.dependencies import SettingsDep  # noqa: TC001 (FastAPI resolves it)
from groundwork.errors import ApiError
from groundwork.storage.factory import get_stores
from groundwork.storage.records import UserRecord


def api_key_of(request: Request) -> str | None:
    """The key the request carries, if any."""
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    if scheme.lower() == "bearer" and token.strip():
        return token.strip()
    key = request.headers.get("x-api-key", "").strip()
    return key or None


def _current_user(request: Request, settings: SettingsDep) -> UserRecord:
    key = api_key_of(request)
    user = get_stores(settings).accounts.authenticate(key) if key else None
    if user is None:
        raise ApiError(
            401,
            "auth.invalid_key",
            "A valid API key is required: send `Authorization: Bearer <key>` or `x-api-key`.",
            type_="authentication_error",
        )
    return user


#: The authenticated user; 401 ``auth.invalid_key`` without a valid key.
CurrentUser = Annotated[UserRecord, Depends(_current_user)]


def require_key_when_configured(request: Request, settings: SettingsDep) -> None:
    """Guards the endpoints that are open by default (``GROUNDWORK_REQUIRE_API_KEY``)."""
    if settings.require_api_key:
        _current_user(request, settings)


def _visible_collections(request: Request, settings: SettingsDep) -> set[str] | None:
    if not settings.require_api_key:
        return None
    user = _current_user(request, settings)
    return set(get_stores(settings).accounts.visible_collections(user.id))


#: What an endpoint that is open by default may search: every collection while it is open
#: (``None``), the key's user's collections once ``GROUNDWORK_REQUIRE_API_KEY`` is set.
VisibleCollections = Annotated[set[str] | None, Depends(_visible_collections)]
