"""What a question follows: the stored branch of its conversation, or the messages sent."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from groundwork.auth.access import Access
    from groundwork.chat.request import ChatMessage
    from groundwork.storage.records import QuestionRecord

#: (question, answer) pairs, oldest first.
History = list[tuple[str, str]]


def stored_history(questions: list[QuestionRecord], access: Access) -> History:
    """The stored pairs; an answer from what the user no longer sees is left out (its
    question stays), so it reaches neither the model nor the cache key."""
    return [(q.question, q.answer if shown(q, access) else "") for q in questions]


def shown(question: QuestionRecord, access: Access) -> bool:
    """The answer came from cards the user still sees (judged by the scope it was asked in)."""
    return access.covers(question.details.get("scope"))


def message_history(messages: list[ChatMessage]) -> History:
    """Pairs of a user message and the assistant message right after it; the last message
    (the question) and system messages are not history."""
    pairs: History = []
    asked: str | None = None
    for message in messages[:-1]:
        if message.role == "user":
            asked = message.content
        elif message.role == "assistant" and asked is not None:
            pairs.append((asked, message.content))
            asked = None
    return pairs
