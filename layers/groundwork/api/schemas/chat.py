"""Native chat's responses: the ``done`` payload, the conversation feed, resolved scopes.

The request (``ChatRequest``) lives with the service, in ``groundwork.chat.request``.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from groundwork.answer.confidence import RefusalReason  # noqa: TC001 (pydantic needs it)
from groundwork.chat.request import ChatScope, Quality  # noqa: TC001 (pydantic needs them)
from groundwork.domain.citations import (  # noqa: TC001 (pydantic needs them at run time)
    Citation,
    GroundingSupport,
)


class ChatExport(BaseModel):
    format: Literal["markdown", "html"]
    content: str


class ChatDone(BaseModel):
    """The ``done`` event's data, and the body of a ``stream: false`` answer."""

    question_id: int = Field(..., description="The turn's version id (int64); `version_of` it.")
    answer_id: str
    conversation_id: str
    request_id: str | None = None
    text: str
    citations: list[Citation]
    grounding_supports: list[GroundingSupport] = Field(
        default_factory=list,
        description="The cited sentences of `text` (UTF-8 byte offsets) and their citations; "
        "empty for an answer saved before they were kept.",
    )
    support_score: float | None = Field(
        None,
        description="0–1: how well the citations back the answer's sentences (a quote supports "
        "itself: grounded, not necessarily an answer to the question).",
    )
    answerability: float | None = Field(
        None,
        description="0–1: how likely the documents answer the question; null for an answer "
        "saved before it was measured.",
    )
    confidence: float | None = Field(
        None,
        description="0–1: how likely this answer answers the question (calibrated on real "
        "questions; the extractive composer refuses under 0.061); null for an answer saved "
        "before it was measured.",
    )
    refusal_reason: RefusalReason | None = Field(
        None,
        description="Why the answer cites nothing, when it refuses: `no_relevant_passage`, "
        "`passages_do_not_answer` or `answer_not_grounded`.",
    )
    cached: bool = Field(..., description="The answer came from the response cache.")
    language: str | None = None
    quality: Quality
    export: ChatExport | None = None
    replayed: bool = Field(False, description="A retry of a `request_id` already answered.")


class FeedVersion(BaseModel):
    question_id: int
    question: str
    quality: str
    created: int
    selected: bool


class FeedItem(BaseModel):
    question_id: int = Field(..., description="The selected version of the turn.")
    turn_id: int
    question: str
    answer: str
    answer_id: str
    citations: list[Citation]
    grounding_supports: list[GroundingSupport] = Field(default_factory=list)
    support_score: float | None
    cached: bool
    quality: str
    origin: str | None
    created: int
    versions: list[FeedVersion] = Field(..., description="Every version of the turn, oldest first.")
    withheld: bool = Field(
        False,
        description="The answer came from documents the user no longer sees (a grant changed): "
        "its text and citations are left out.",
    )


class Feed(BaseModel):
    conversation_id: str
    items: list[FeedItem]


class Conversation(BaseModel):
    id: str
    created: int
    updated: int
    scope: JsonValue = Field(None, description="The saved scope, applied when none is sent.")
    settings: dict[str, JsonValue]
    questions: int = Field(..., description="Questions asked, every version counted.")


class SelectVersionRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    question_id: int = Field(..., ge=1, lt=2**63)


class ScopeRequest(BaseModel):
    """The scope fields of a ChatRequest; with ``conversation_id`` and no ``scope``, the
    conversation's saved scope is resolved."""

    model_config = ConfigDict(extra="forbid")

    collection: str = Field("default", min_length=1, max_length=128)
    tags: list[str] | None = Field(None, max_length=50)
    card_ids: list[str] | None = Field(None, max_length=50)
    scope: ChatScope | None = None
    conversation_id: str | None = Field(None, min_length=1, max_length=64)


class ResolvedScope(BaseModel):
    """What a question with this scope searches."""

    collections: list[str]
    source_ids: list[str] | None
    card_ids: list[str] | None
    tags: list[str] | None
    period_start: str | None
    period_end: str | None
    scope: ChatScope | None = Field(None, description="The scope applied (sent or saved).")
