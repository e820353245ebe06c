"""The local user: on a laptop, the page works without an API key.

``groundwork serve`` bound to the loopback interface on the embedded defaults turns it on
(``GROUNDWORK_LOCAL_USER``): a request without a key that comes from this machine, addressed
to this machine (a ``Host`` of ``localhost``, ``127.0.0.1`` or ``[::1]``, so a web page of
another site cannot reach it by renaming itself, as DNS rebinding does) and not relayed by a
proxy (no ``Forwarded`` or ``X-Forwarded-For``), is the user ``local``. That user is a user
like any other: it sees the collections it is granted, and is granted every collection
registered on start and every one ``groundwork ingest`` writes to. A request with a key is
its key's user, as always; ``GROUNDWORK_REQUIRE_API_KEY`` turns the local user off.
"""

from __future__ import annotations

import contextlib
import ipaddress
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Mapping

    from groundwork.retrieval.base import Retriever
    from groundwork.storage.accounts import AccountStore
    from groundwork.storage.records import UserRecord

LOCAL_USER = "local"
_LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "[::1]", "::1"})


def is_loopback(host: str | None) -> bool:
    """An address or name of this machine only."""
    if not host:
        return False
    if host in _LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def is_local_request(client: str | None, headers: Mapping[str, str]) -> bool:
    lowered = {name.lower(): value for name, value in headers.items()}
    if "forwarded" in lowered or "x-forwarded-for" in lowered:
        return False
    host = lowered.get("host", "")
    name = host.rsplit(":", 1)[0] if not host.endswith("]") else host
    return is_loopback(client) and is_loopback(name)


def local_user(accounts: AccountStore) -> UserRecord | None:
    return accounts.get_user(LOCAL_USER)


def prepare_local_user(accounts: AccountStore, retriever: Retriever, default: str) -> None:
    """The local user, granted every registered collection and the default one (registered
    here when it holds cards)."""
    from groundwork.storage.errors import AlreadyExists

    if accounts.get_user(LOCAL_USER) is None:
        with contextlib.suppress(AlreadyExists):  # another process started at the same moment
            accounts.create_user(LOCAL_USER, "This computer's user")
    if accounts.get_collection(default) is None and retriever.count(default):
        grant_local(accounts, default)
    for collection in accounts.list_collections():
        accounts.grant(LOCAL_USER, collection.name)


def grant_local(accounts: AccountStore, collection: str) -> None:
    """Register ``collection`` when it is not, and let the local user (if there is one on
    this storage) see it."""
    from groundwork.storage.errors import AlreadyExists

    if accounts.get_collection(collection) is None:
        with contextlib.suppress(AlreadyExists):
            accounts.create_collection(collection)
    if accounts.get_user(LOCAL_USER) is not None:
        accounts.grant(LOCAL_USER, collection)
