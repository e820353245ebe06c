"""``POST /v1/chat/completions``: the OpenAI request and response, plus ``citations``."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool

from groundwork.answer.confidence import RefusalReason  # noqa: TC001 (pydantic needs it at run time)
from groundwork.chat.request import ChatScope  # noqa: TC001 (pydantic needs it at run time)
from groundwork.domain.citations import (  # noqa: TC001 (pydantic needs them at run time)
    Citation,
    GroundingSupport,
)


class TextPart(BaseModel):
    type: Literal["text"]
    text: str


class ChatMessage(BaseModel):
    model_config = ConfigDict(extra="allow")

    role: Literal["system", "developer", "user", "assistant"]
    content: str | list[TextPart] | None = None

    def text(self) -> str:
        if isinstance(self.content, list):
            return "".join(part.text for part in self.content)
        return self.content or ""


class StreamOptions(BaseModel):
    model_config = ConfigDict(extra="allow")

    include_usage: StrictBool = Field(False, description="Send a usage chunk before `[DONE]`.")


class ChatCompletionRequest(BaseModel):
    """OpenAI fields clients send; unknown fields are accepted and ignored, as OpenAI does.
    Booleans are JSON booleans: ``"stream": "yes"`` is refused, not read as true.

        ``collection``, ``scope``, ``tags``, ``card_ids``, ``language`` and ``quality`` are
        Groundwork's extensions, resolved as on ``/v1/chat``; the SDK sends them through
        ``extra_body``.
    """

    model_config = ConfigDict(extra="allow")

    model: str = Field(..., min_length=1)
    messages: list[ChatMessage] = Field(..., min_length=1)
    stream: StrictBool | None = False
    stream_options: StreamOptions | None = None
    temperature: float | None = Field(None, ge=0, le=2)
    max_tokens: int | None = Field(None, ge=1, description="Deprecated by OpenAI; still honoured.")
    max_completion_tokens: int | None = Field(None, ge=1)
    stop: str | Annotated[list[str], Field(max_length=4)] | None = Field(
        None, description="Up to 4 sequences that end the text."
    )
    user: str | None = None
    n: int | None = Field(None, description="Only 1 is supported.")
    collection: str | None = Field(None, min_length=1, max_length=128)
    tags: list[str] | None = Field(
        None, max_length=50, description="Answer only from documents with a tag."
    )
    scope: ChatScope | None = Field(
        None, description="Collections (replacing `collection`), a source, tags, a period."
    )
    card_ids: list[str] | None = Field(None, max_length=50, description="Only these cards.")
    language: str | None = Field(
        None, description="ISO 639-1 code of the answer's language; `auto` or none: the question's."
    )
    quality: Literal["fast", "precise"] = Field(
        "precise", description="`fast`: keyword search only; `precise`: hybrid search, reranked."
    )

    def stop_sequences(self) -> tuple[str, ...]:
        if self.stop is None:
            return ()
        return (self.stop,) if isinstance(self.stop, str) else tuple(self.stop)


class ResponseMessage(BaseModel):
    role: Literal["assistant"] = "assistant"
    content: str


class Choice(BaseModel):
    index: int
    message: ResponseMessage
    finish_reason: Literal["stop", "length"]


class Usage(BaseModel):
    prompt_tokens: int
    completion_tokens: int
    total_tokens: int


class ChatCompletion(BaseModel):
    id: str
    object: Literal["chat.completion"] = "chat.completion"
    created: int
    model: str
    choices: list[Choice]
    usage: Usage
    citations: list[Citation]
    grounding_supports: list[GroundingSupport] = Field(
        default_factory=list,
        description="Each cited sentence of the answer (UTF-8 byte offsets into the content, "
        "its markers left out) with the citations that support it and their scores, as "
        "Vertex AI's `groundingSupports`.",
    )
    support_score: float | None = Field(
        None,
        description="0–1: how well the citations back the answer's sentences (null when "
        "nothing was retrieved). A quote supports itself: it says the text is grounded, not "
        "that it answers the question (that is `confidence`).",
    )
    language: str | None = Field(
        None,
        description="ISO 639-1 code of the language the answer is written in (detected; "
        "null when unknown), which may differ from `requested_language`.",
    )
    requested_language: str | None = Field(
        None, description="The language asked for: `language`, or the question's when `auto`."
    )
    answerability: float = Field(
        ...,
        description="0–1: how likely the documents answer the question (and, for a model's "
        "answer, that its sentences address it).",
    )
    confidence: float = Field(
        0.0,
        description="0–1: how likely this answer answers the question, calibrated on real "
        "questions; the extractive composer refuses under 0.061. Threshold it to refuse more.",
    )
    refusal_reason: RefusalReason | None = Field(
        None,
        description="Why the answer cites nothing, when it refuses: `no_relevant_passage`, "
        "`passages_do_not_answer` or `answer_not_grounded`; null for an answer.",
    )
