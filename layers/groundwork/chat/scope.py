"""Scope resolution: a requested scope turned into what the user may search.

The scope's collections replace ``collection``; a source restricts the search to its
collection and its cards; the scope's tags are added to ``tags``; the period keeps dated
documents of that period. Only what the user can see may be selected.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from groundwork.auth.access import Access
from groundwork.chat.ownership import owned_conversation
from groundwork.chat.request import ChatScope
from groundwork.errors import ApiError
from groundwork.retrieval.base import SearchFilter

if TYPE_CHECKING:
    from pydantic import JsonValue

    from groundwork.retrieval.base import Retriever
    from groundwork.storage.accounts import AccountStore
    from groundwork.storage.base import Storage
    from groundwork.storage.records import UserRecord
    from groundwork.storage.stores import Stores


def resolve_scope(
    accounts: AccountStore,
    storage: Storage,
    retriever: Retriever,
    access: Access | None,
    *,
    collection: str,
    scope: ChatScope | None,
    tags: list[str] | None = None,
    card_ids: list[str] | None = None,
) -> SearchFilter:
    """The search filter of a question; raises ``ApiError`` for anything the user cannot see.

    ``access`` holds what the user may see, and the filter keeps the rest of each collection
    out of the search; ``None`` lets every existing collection be searched whole (the open
    chat completions endpoint, see docs/chat.md).
    """
    scope = None if scope is None or scope.is_empty() else scope
    collections = list(dict.fromkeys(scope.collections if scope and scope.collections else []))
    for name in collections:
        check_collection(accounts, retriever, access, name, param="scope.collections")
    if not collections and not (scope and scope.source_id):
        # A source replaces ``collection`` with its own, so only then is it not checked.
        check_collection(accounts, retriever, access, collection)
    collections = collections or [collection]
    source_ids: list[str] | None = None
    if scope and scope.source_id:
        source = storage.get_source(scope.source_id)
        # A source the user sees no card of does not exist for them.
        if source is None or (access is not None and not access.sees_source(source, retriever)):
            raise ApiError(
                404,
                "sources.not_found",
                f"No source `{scope.source_id}`.",
                param="scope.source_id",
            )
        collections, source_ids = [source.collection], [source.id]
    merged_tags = list(dict.fromkeys([*(tags or []), *(scope.tags or [] if scope else [])]))
    period = scope.period if scope else None
    where = SearchFilter(
        collections=collections,
        source_ids=source_ids,
        card_ids=list(dict.fromkeys(card_ids)) if card_ids else None,
        tags=merged_tags or None,
        period_start=period.start if period else None,
        period_end=period.end if period else None,
    )
    return access.narrow(where) if access is not None else where


def resolve_for_user(
    stores: Stores,
    storage: Storage,
    retriever: Retriever,
    user: UserRecord,
    *,
    conversation_id: str | None,
    scope: ChatScope | None,
    scope_sent: bool,
    collection: str,
    tags: list[str] | None,
    card_ids: list[str] | None,
) -> tuple[SearchFilter, ChatScope | None]:
    """What the user's question would search, and the scope applied (sent or saved).

    Resolves without saving: ``POST /v1/scope/resolve`` and the scope function answer with it.
    """
    saved: JsonValue = None
    if conversation_id is not None:
        conversation = owned_conversation(
            stores.conversations, user, conversation_id, param="conversation_id"
        )
        saved = conversation.scope
    applied, _ = effective_scope(scope, sent=scope_sent, saved=saved)
    where = resolve_scope(
        stores.accounts,
        storage,
        retriever,
        Access.of(stores.accounts, user.id),
        collection=collection,
        scope=applied,
        tags=tags,
        card_ids=card_ids,
    )
    return where, applied


def effective_scope(
    requested: ChatScope | None, *, sent: bool, saved: JsonValue
) -> tuple[ChatScope | None, bool]:
    """The scope to apply, and whether to save it on the conversation.

    A ``scope`` field that was sent is applied and saved; null or an empty scope resets the
    saved one. Without the field (``sent`` is False) the conversation's saved scope applies.
    """
    if sent:
        return (None if requested is None or requested.is_empty() else requested), True
    if isinstance(saved, dict):
        return ChatScope.model_validate(saved), False
    return None, False


def check_collection(
    accounts: AccountStore,
    retriever: Retriever,
    access: Access | None,
    name: str,
    *,
    param: str = "collection",
) -> None:
    """404 for a collection that does not exist, 403 for one the user may not see.

    A collection exists once registered (``groundwork admin create-collection``) or once it
    holds cards (ingested); only a registered one can be granted. ``access=None``: any.
    """
    if access is not None and name in access:
        return
    if accounts.get_collection(name) is None and retriever.count(name) == 0:
        raise ApiError(404, "collections.not_found", f"No collection `{name}`.", param=param)
    if access is None:
        return
    raise ApiError(
        403, "collections.no_access", f"You may not see the collection `{name}`.", param=param
    )
