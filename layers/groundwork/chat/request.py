"""``POST /v1/chat``'s request: every field of the contract's ChatRequest, with its limits."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, field_validator

from groundwork.text.language_names import language_code

ExportFormat = Literal["markdown", "html"]
Quality = Literal["fast", "precise"]


class ChatMessage(BaseModel):
    model_config = ConfigDict(extra="ignore")

    role: Literal["system", "user", "assistant"]
    content: str


class ChatPeriod(BaseModel):
    """ISO dates of any precision (``2024``, ``2024-03``, ``2024-03-31``); both ends included."""

    model_config = ConfigDict(extra="forbid")

    start: str | None = Field(None, pattern=r"^\d{4}(-\d{2}(-\d{2})?)?$")
    end: str | None = Field(None, pattern=r"^\d{4}(-\d{2}(-\d{2})?)?$")


class ChatScope(BaseModel):
    """The perimeter of a question: several collections, one source, tags and a period."""

    model_config = ConfigDict(extra="forbid")

    collections: list[str] | None = Field(None, max_length=50, description="Replace `collection`.")
    source_id: str | None = Field(
        None, min_length=1, max_length=256, description="Only this source (and its collection)."
    )
    tags: list[str] | None = Field(None, max_length=50, description="Added to `tags`.")
    period: ChatPeriod | None = Field(None, description="Dated documents of this period only.")

    def is_empty(self) -> bool:
        period = self.period
        return not (
            self.collections
            or self.source_id
            or self.tags
            or (period is not None and (period.start or period.end))
        )


class ChatRequest(BaseModel):
    """Unknown fields are refused, so that a misspelt option is not silently ignored; booleans
    are JSON booleans (``"stream": "yes"`` is refused)."""

    model_config = ConfigDict(extra="forbid")

    messages: list[ChatMessage] = Field(..., min_length=1)
    collection: str = Field("default", min_length=1, max_length=128)
    tags: list[str] | None = Field(None, max_length=50)
    export: ExportFormat | None = Field(
        None, description="Also return the answer in this format, citations as footnotes."
    )
    card_ids: list[str] | None = Field(None, max_length=50)
    stream: StrictBool = False
    conversation_id: str | None = Field(
        None, min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.:-]+$"
    )
    origin: str | None = Field(None, max_length=128, description="Client label, recorded.")
    tools: StrictBool | None = Field(None, description="Recorded; no tools are available yet.")
    bypass_cache: StrictBool = False
    language: str | None = Field(
        None, description="ISO 639-1 code of the answer; `auto` or absent: the question's."
    )
    scope: ChatScope | None = None
    request_id: str | None = Field(None, min_length=1, max_length=64)
    version_of: int | None = Field(None, ge=1, lt=2**63)
    quality: Quality = "precise"

    @field_validator("language")
    @classmethod
    def _language(cls, value: str | None) -> str | None:
        if value is None or value == "auto":
            return None
        code = language_code(value)
        if code is None:
            raise ValueError("must be an ISO 639-1 code (two letters) or `auto`")
        return code

    @field_validator("messages")
    @classmethod
    def _ends_with_question(cls, value: list[ChatMessage]) -> list[ChatMessage]:
        if value[-1].role != "user" or not value[-1].content.strip():
            raise ValueError("the last message must be the user's question")
        return value

    def question(self) -> str:
        return self.messages[-1].content.strip()
