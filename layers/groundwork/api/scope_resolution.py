"""``ScopeRequest`` → ``ResolvedScope`` for the scope route and the scope function alike.

Free of FastAPI, so that the scope function can answer API Gateway events without the app.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from groundwork.api.schemas.chat import ResolvedScope
from groundwork.chat.scope import resolve_for_user
from groundwork.retrieval.factory import get_retriever
from groundwork.storage.factory import get_storage, get_stores

if TYPE_CHECKING:
    from groundwork.api.schemas.chat import ScopeRequest
    from groundwork.settings import Settings
    from groundwork.storage.records import UserRecord


def resolve_request(body: ScopeRequest, user: UserRecord, settings: Settings) -> ResolvedScope:
    where, applied = resolve_for_user(
        get_stores(settings),
        get_storage(settings),
        get_retriever(settings),
        user,
        conversation_id=body.conversation_id,
        scope=body.scope,
        scope_sent="scope" in body.model_fields_set,
        collection=body.collection,
        tags=body.tags,
        card_ids=body.card_ids,
    )
    return ResolvedScope(**where.model_dump(), scope=applied)
