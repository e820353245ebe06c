"""A user reaches only their own conversations."""

from __future__ import annotations

from typing import TYPE_CHECKING

from groundwork.errors import ApiError

if TYPE_CHECKING:
    from groundwork.storage.conversations import ConversationStore
    from groundwork.storage.records import ConversationRecord, UserRecord


def owned_conversation(
    conversations: ConversationStore,
    user: UserRecord,
    conversation_id: str,
    *,
    param: str | None = None,
) -> ConversationRecord:
    """The user's conversation; another user's is not found, exactly like a missing one."""
    record = conversations.get_conversation(conversation_id)
    if record is None or record.user_id != user.id:
        raise ApiError(
            404, "conversations.not_found", f"No conversation `{conversation_id}`.", param=param
        )
    return record
