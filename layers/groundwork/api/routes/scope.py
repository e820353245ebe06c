"""``POST /v1/scope/resolve``: what a question with this scope would search, checked against
what the user may see. It saves nothing; a chat request saves the scope it is sent."""

from __future__ import annotations

from fastapi import APIRouter

from groundwork.api.dependencies import SettingsDep  # noqa: TC001
from groundwork.api.schemas.chat import ResolvedScope, ScopeRequest
from groundwork.auth.keys import CurrentUser  # noqa: TC001
from groundwork.chat.scope import effective_scope, resolve_scope
from groundwork.errors import ApiError
from groundwork.retrieval.factory import get_retriever
from groundwork.storage.factory import get_storage, get_stores

router = APIRouter(prefix="/v1/scope", tags=["chat"])


@router.post("/resolve", response_model=ResolvedScope)
def resolve(body: ScopeRequest, user: CurrentUser, settings: SettingsDep) -> ResolvedScope:
    stores = get_stores(settings)
    saved = None
    if body.conversation_id is not None:
        conversation = stores.conversations.get_conversation(body.conversation_id)
        if conversation is None or conversation.user_id != user.id:
            raise ApiError(
                404,
                "conversations.not_found",
                f"No conversation `{body.conversation_id}`.",
                param="conversation_id",
            )
        saved = conversation.scope
    scope, _ = effective_scope(body.scope, sent="scope" in body.model_fields_set, saved=saved)
    where = resolve_scope(
        stores.accounts,
        get_storage(settings),
        get_retriever(settings),
        set(stores.accounts.visible_collections(user.id)),
        collection=body.collection,
        scope=scope,
        tags=body.tags,
        card_ids=body.card_ids,
    )
    return ResolvedScope(**where.model_dump(), scope=scope)
