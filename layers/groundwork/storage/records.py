"""The service's state as pydantic records; both backends store exactly these."""

from __future__ import annotations

import hashlib
import secrets
from enum import StrEnum

from pydantic import BaseModel, Field, JsonValue

from groundwork.domain.citations import (  # noqa: TC001 (pydantic needs them at run time)
    Citation,
    GroundingSupport,
)

#: Question ids are int64 in the API; 53 bits keep them exact in JavaScript clients too.
_QUESTION_ID_BITS = 53


def hash_api_key(key: str) -> str:
    """What is stored for an API key: its SHA-256, never the key itself."""
    return hashlib.sha256(key.encode()).hexdigest()


def new_api_key() -> str:
    return "gw_" + secrets.token_urlsafe(32)


def new_question_id() -> int:
    """A random id, unique across conversations, so another conversation's id is not found."""
    return secrets.randbits(_QUESTION_ID_BITS) or 1


class UserRecord(BaseModel):
    id: str
    name: str
    created: int


class ApiKeyRecord(BaseModel):
    key_hash: str
    user_id: str
    label: str | None = None
    created: int


class CollectionRecord(BaseModel):
    name: str
    title: str | None = None
    created: int


class GrantRecord(BaseModel):
    """The user may see the collection: all of it, or, with a filter, the cards that have one
    of ``tags`` or come from one of ``source_ids`` (see ``groundwork.auth.access``)."""

    user_id: str
    collection: str
    created: int
    tags: list[str] = Field(default_factory=list)
    source_ids: list[str] = Field(default_factory=list)

    @property
    def whole(self) -> bool:
        """No filter: every card of the collection."""
        return not self.tags and not self.source_ids


class ConversationRecord(BaseModel):
    """A conversation and the state that spans its turns."""

    id: str
    user_id: str
    created: int
    updated: int
    #: The first question asked in it, for listings; None until the first question is stored.
    title: str | None = None
    scope: JsonValue = None
    settings: dict[str, JsonValue] = Field(default_factory=dict)
    #: The selected version (question id) of each turn, keyed by the turn's id.
    selected: dict[int, int] = Field(default_factory=dict)
    #: Questions stored so far, every version counted; the optimistic-lock counter.
    questions: int = 0


class QuestionRecord(BaseModel):
    """One version of a turn: a question and the answer given to it."""

    id: int
    conversation_id: str
    #: The id of the turn's first version; every version of the turn shares it.
    turn_id: int = 0
    #: The version of the previous turn this one follows; None for the first turn.
    parent_id: int | None = None
    seq: int = 0
    question: str
    answer_id: str
    answer: str
    citations: list[Citation] = Field(default_factory=list)
    grounding_supports: list[GroundingSupport] = Field(default_factory=list)
    support: float | None = None
    quality: str = "precise"
    cached: bool = False
    details: dict[str, JsonValue] = Field(default_factory=dict)
    created: int


class Turn(BaseModel):
    """A feed item: the selected version of a turn and all of its versions, oldest first."""

    turn_id: int
    selected: QuestionRecord
    versions: list[QuestionRecord]


class IdempotencyStatus(StrEnum):
    IN_PROGRESS = "IN_PROGRESS"
    COMPLETE = "COMPLETE"


class IdempotencyRecord(BaseModel):
    """The state of one ``request_id`` of one user."""

    user_id: str
    request_id: str
    status: IdempotencyStatus
    #: Who generates the answer; only the owner may complete or release the record.
    owner: str
    #: Epoch seconds: the lease of an in-progress record, the retention of a complete one.
    expiration: int
    #: A digest of the request; the caller decides what a different payload means.
    payload_hash: str | None = None
    response: dict[str, JsonValue] | None = None
    created: int


class ClaimOutcome(StrEnum):
    #: The caller owns the record now (new, expired, or its own earlier claim) and generates.
    CLAIMED = "claimed"
    #: Someone else is generating; the record says who and until when.
    IN_PROGRESS = "in_progress"
    #: The answer is saved; send ``record.response`` again.
    COMPLETE = "complete"


class Claim(BaseModel):
    outcome: ClaimOutcome
    record: IdempotencyRecord


class Completion(BaseModel):
    """Marks an idempotency record complete in the same transaction as a question."""

    user_id: str
    request_id: str
    owner: str
    response: dict[str, JsonValue]
    retention_seconds: int = 24 * 3600


class CacheEntry(BaseModel):
    key: str
    response: dict[str, JsonValue]
    created: int
    expiration: int


class QuotaRecord(BaseModel):
    """What a user may still consume; None is unlimited."""

    user_id: str
    questions_left: int | None = None
    credits_left: int | None = None
    questions_used: int = 0
    credits_used: int = 0
