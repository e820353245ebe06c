"""The API key a request carries and its user, read the same way by the app and by plain
Lambda handlers (``groundwork.http_events``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from groundwork.errors import ApiError

if TYPE_CHECKING:
    from collections.abc import Mapping

    from groundwork.settings import Settings
    from groundwork.storage.records import UserRecord


def api_key_from(headers: Mapping[str, str]) -> str | None:
    """``Authorization: Bearer <key>`` (what OpenAI clients send) or ``x-api-key``.

    ``headers`` may be any mapping; names are compared without case, as HTTP does.
    """
    lowered = {name.lower(): value for name, value in headers.items()}
    scheme, _, token = lowered.get("authorization", "").partition(" ")
    if scheme.lower() == "bearer" and token.strip():
        return token.strip()
    key = lowered.get("x-api-key", "").strip()
    return key or None


def user_for(headers: Mapping[str, str], settings: Settings) -> UserRecord:
    """The user of the key in ``headers``; 401 ``auth.invalid_key`` without a valid key."""
    from groundwork.storage.factory import get_stores

    key = api_key_from(headers)
    user = get_stores(settings).accounts.authenticate(key) if key else None
    if user is None:
        raise ApiError(
            401,
            "auth.invalid_key",
            "A valid API key is required: send `Authorization: Bearer <key>` or `x-api-key`.",
            type_="authentication_error",
        )
    return user
