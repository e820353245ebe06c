"""``GET /v1/conversations``: the key's user's conversations, most recently updated first.

The routes of one conversation are in ``conversations.py``.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from groundwork.api.dependencies import SettingsDep  # noqa: TC001
from groundwork.api.schemas.errors import error_responses
from groundwork.api.schemas.listings import ConversationList, ConversationSummary
from groundwork.auth.keys import CurrentUser  # noqa: TC001
from groundwork.errors import ApiError
from groundwork.storage.conversations import InvalidCursor
from groundwork.storage.factory import get_stores

router = APIRouter(
    prefix="/v1/conversations", tags=["conversations"], responses=error_responses(400, 401)
)


@router.get("", response_model=ConversationList)
def list_conversations(
    user: CurrentUser,
    settings: SettingsDep,
    limit: Annotated[int, Query(ge=1, le=100)] = 20,
    cursor: Annotated[str | None, Query(max_length=200)] = None,
) -> ConversationList:
    try:
        page = get_stores(settings).conversations.list_conversations(
            user.id, limit=limit, cursor=cursor
        )
    except InvalidCursor as error:
        raise ApiError(
            400,
            "cursor.invalid",
            "The cursor is not a `next_cursor` of this listing.",
            param="query.cursor",
        ) from error
    return ConversationList(
        data=[
            ConversationSummary(
                id=c.id,
                title=c.title,
                created=c.created,
                updated=c.updated,
                questions=c.questions,
            )
            for c in page.conversations
        ],
        next_cursor=page.next_cursor,
    )
