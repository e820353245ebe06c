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


def user_for(
    headers: Mapping[str, str], settings: Settings, client: str | None = None
) -> UserRecord:
    """The user of the key in ``headers``; without a key, the local user for a request from
    ``client`` (the peer's address) when it is on and the request is local
    (``auth/local.py``); 401 ``auth.invalid_key`` otherwise."""
    from groundwork.storage.factory import get_stores

    accounts = get_stores(settings).accounts
    key = api_key_from(headers)
    user = accounts.authenticate(key) if key else None
    if key is None and settings.local_user and not settings.require_api_key:
        from groundwork.auth.local import is_local_request, local_user

        user = local_user(accounts) if is_local_request(client, headers) else None
    if user is None:
        raise ApiError(
            401,
            "auth.invalid_key",
            "A valid API key is required: send `Authorization: Bearer <key>` or `x-api-key`.",
            type_="authentication_error",
        )
    return user
