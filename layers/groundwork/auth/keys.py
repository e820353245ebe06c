"""API keys from request headers, and the FastAPI dependencies that turn them into users.

A key comes as ``Authorization: Bearer <key>`` (what OpenAI clients send) or ``x-api-key``.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from groundwork.api.dependencies import SettingsDep  # noqa: TC001 (FastAPI resolves it)
from groundwork.auth.access import Access
from groundwork.auth.headers import user_for
from groundwork.storage.factory import get_stores
from groundwork.storage.records import UserRecord


def _current_user(request: Request, settings: SettingsDep) -> UserRecord:
    return user_for(request.headers, settings, request.client.host if request.client else None)


#: The authenticated user; 401 ``auth.invalid_key`` without a valid key.
CurrentUser = Annotated[UserRecord, Depends(_current_user)]


def require_key_when_configured(request: Request, settings: SettingsDep) -> None:
    """Guards the endpoints that are open by default (``GROUNDWORK_REQUIRE_API_KEY``)."""
    if settings.require_api_key:
        _current_user(request, settings)


def _user_access(request: Request, settings: SettingsDep) -> Access | None:
    if not settings.require_api_key:
        return None
    user = _current_user(request, settings)
    return Access.of(get_stores(settings).accounts, user.id)


#: What an endpoint that is open by default may search: every collection while it is open
#: (``None``), what the key's user was granted once ``GROUNDWORK_REQUIRE_API_KEY`` is set.
UserAccess = Annotated[Access | None, Depends(_user_access)]
