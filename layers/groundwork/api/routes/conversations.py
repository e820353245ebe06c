"""A user's conversations: the feed of the selected branch, and choosing a turn's version."""

from __future__ import annotations

from typing import TYPE_CHECKING

from fastapi import APIRouter

from groundwork.api.dependencies import SettingsDep  # noqa: TC001
from groundwork.api.schemas.chat import (
    Conversation,
    Feed,
    FeedItem,
    FeedVersion,
    SelectVersionRequest,
)
from groundwork.api.schemas.errors import error_responses
from groundwork.auth.access import Access
from groundwork.auth.keys import CurrentUser  # noqa: TC001
from groundwork.chat.history import shown
from groundwork.chat.ownership import owned_conversation
from groundwork.errors import ApiError
from groundwork.storage.factory import get_stores

if TYPE_CHECKING:
    from groundwork.storage.records import Turn

router = APIRouter(
    prefix="/v1/conversations", tags=["conversations"], responses=error_responses(401, 404)
)


@router.get("/{conv_id}", response_model=Conversation)
def get_conversation(conv_id: str, user: CurrentUser, settings: SettingsDep) -> Conversation:
    record = owned_conversation(get_stores(settings).conversations, user, conv_id)
    return Conversation(
        id=record.id,
        created=record.created,
        updated=record.updated,
        scope=record.scope,
        settings=record.settings,
        questions=record.questions,
    )


@router.get("/{conv_id}/feed", response_model=Feed)
def get_feed(conv_id: str, user: CurrentUser, settings: SettingsDep) -> Feed:
    stores = get_stores(settings)
    owned_conversation(stores.conversations, user, conv_id)
    return _feed(conv_id, stores.conversations.feed(conv_id), Access.of(stores.accounts, user.id))


@router.post("/{conv_id}/versions", response_model=Feed, responses=error_responses(400))
def select_version(
    conv_id: str, body: SelectVersionRequest, user: CurrentUser, settings: SettingsDep
) -> Feed:
    """Select a version of a turn; the feed then follows that version's branch."""
    stores = get_stores(settings)
    conversations = stores.conversations
    owned_conversation(conversations, user, conv_id)
    if conversations.get_question(conv_id, body.question_id) is None:
        raise ApiError(
            404,
            "questions.not_found",
            f"No question {body.question_id} in this conversation.",
            param="question_id",
        )
    conversations.select_version(conv_id, body.question_id)
    return _feed(conv_id, conversations.feed(conv_id), Access.of(stores.accounts, user.id))


def _feed(conv_id: str, turns: list[Turn], access: Access) -> Feed:
    items = []
    for turn in turns:
        chosen = turn.selected
        origin = chosen.details.get("origin")
        visible = shown(chosen, access)
        items.append(
            FeedItem(
                question_id=chosen.id,
                turn_id=turn.turn_id,
                question=chosen.question,
                answer=chosen.answer if visible else "",
                answer_id=chosen.answer_id,
                citations=chosen.citations if visible else [],
                grounding_supports=chosen.grounding_supports if visible else [],
                support_score=chosen.support if visible else None,
                withheld=not visible,
                cached=chosen.cached,
                quality=chosen.quality,
                origin=origin if isinstance(origin, str) else None,
                created=chosen.created,
                versions=[
                    FeedVersion(
                        question_id=v.id,
                        question=v.question,
                        quality=v.quality,
                        created=v.created,
                        selected=v.id == chosen.id,
                    )
                    for v in turn.versions
                ],
            )
        )
    return Feed(conversation_id=conv_id, items=items)
