"""OpenAI-compatible chat completions with a ``citations`` array."""

from __future__ import annotations

import time
import uuid

from fastapi import APIRouter

from groundwork.api.dependencies import AnswerServiceDep, SettingsDep  # noqa: TC001
from groundwork.api.schemas.completions import (
    ChatCompletion,
    ChatCompletionRequest,
    Choice,
    ResponseMessage,
    Usage,
)
from groundwork.generation.base import Turn
from groundwork.text.tokens import count_tokens

router = APIRouter(prefix="/v1", tags=["chat completions"])


@router.post("/chat/completions", response_model=ChatCompletion)
def create_chat_completion(
    body: ChatCompletionRequest, service: AnswerServiceDep, settings: SettingsDep
) -> ChatCompletion:
    turns = [Turn("system" if m.role == "developer" else m.role, m.text()) for m in body.messages]
    answer = service.answer(turns, body.collection or settings.default_collection)
    prompt_tokens = count_tokens(*(t.content for t in turns))
    completion_tokens = count_tokens(answer.text)
    return ChatCompletion(
        id=f"chatcmpl-{uuid.uuid4().hex}",
        created=int(time.time()),
        model=body.model,
        choices=[
            Choice(index=0, message=ResponseMessage(content=answer.text), finish_reason="stop")
        ],
        usage=Usage(
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            total_tokens=prompt_tokens + completion_tokens,
        ),
        citations=answer.citations,
    )
