"""What the conversation asks: its last user message, read with the turn before it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from groundwork.errors import ApiError
from groundwork.text.terms import terms

if TYPE_CHECKING:
    from collections.abc import Sequence

    from groundwork.generation.base import Turn

#: A question with at most this many content words is read as a follow-up ("And in 1998?").
FOLLOW_UP_TERMS = 3


def last_question(turns: Sequence[Turn]) -> str:
    if not turns or turns[-1].role != "user" or not turns[-1].content.strip():
        raise ApiError(
            400,
            "messages.no_question",
            "The last message must be a non-empty user message: it is the question answered.",
            param="messages",
        )
    return turns[-1].content


def check_length(question: str, max_chars: int) -> None:
    """A question longer than ``max_chars`` is refused: it would be searched, detected and
    tokenized whole, for an answer no better than a shorter question gets."""
    if len(question) > max_chars:
        raise ApiError(
            400,
            "question.too_long",
            f"The question has {len(question):,} characters; at most {max_chars:,} are read.",
            param="messages",
        )


def search_query(turns: Sequence[Turn]) -> str:
    """The words to search with: the question, plus the previous user question's content
    words when the question is a short follow-up that leans on it."""
    question = last_question(turns)
    if len(set(terms(question))) > FOLLOW_UP_TERMS:
        return question
    previous = next(
        (t.content for t in reversed(turns[:-1]) if t.role == "user" and t.content.strip()), None
    )
    if previous is None:
        return question
    return f"{question} {' '.join(terms(previous))}"
