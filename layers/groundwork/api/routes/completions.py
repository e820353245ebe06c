"""OpenAI-compatible chat completions with ``citations``, answered whole or streamed (SSE)."""

from __future__ import annotations

import json
import logging
import time
import uuid
from typing import TYPE_CHECKING, Any

import anyio
from fastapi import APIRouter, Request
from fastapi.responses import StreamingResponse
from starlette.concurrency import run_in_threadpool

from groundwork.answer.question import check_length, last_question
from groundwork.answer.service import AnswerOptions, Delta, Finish
from groundwork.api.answering import AnswerServiceDep  # noqa: TC001
from groundwork.api.dependencies import SettingsDep  # noqa: TC001
from groundwork.api.keepalive import first_event, keep_alive
from groundwork.api.schemas.completions import (
    ChatCompletion,
    ChatCompletionRequest,
    Choice,
    ResponseMessage,
    Usage,
)
from groundwork.api.schemas.errors import error_responses
from groundwork.auth.keys import UserAccess  # noqa: TC001 (FastAPI resolves it)
from groundwork.chat.language import answer_language
from groundwork.chat.scope import resolve_scope
from groundwork.errors import ApiError, BackendUnavailable, unavailable
from groundwork.generation.base import Turn
from groundwork.observability.entry import record_stream_failure
from groundwork.retrieval.factory import get_retriever
from groundwork.storage.factory import get_storage, get_stores
from groundwork.text.tokens import count_tokens

if TYPE_CHECKING:
    from collections.abc import AsyncGenerator, Awaitable, Generator

    from fastapi import Response

logger = logging.getLogger(__name__)

router = APIRouter(prefix="/v1", tags=["chat completions"])

_STREAM_DOC = (
    "With `stream: true`: `text/event-stream` of `chat.completion.chunk` objects; the last "
    "chunk (empty `delta`, `finish_reason`) carries `citations`, `grounding_supports`, "
    "`support_score`, `answerability`, `confidence` and `refusal_reason`."
)


@router.post(
    "/chat/completions",
    response_model=ChatCompletion,
    responses={
        200: {"content": {"text/event-stream": {}}, "description": _STREAM_DOC},
        **error_responses(400, 401, 403, 404, 502, 504),
    },
)
async def create_chat_completion(
    body: ChatCompletionRequest,
    request: Request,
    service: AnswerServiceDep,
    settings: SettingsDep,
    access: UserAccess,
) -> ChatCompletion | Response:
    if body.n not in (None, 1):
        raise ApiError(
            400, "n.unsupported", "One answer is generated per request: `n` must be 1.", param="n"
        )
    turns = [Turn("system" if m.role == "developer" else m.role, m.text()) for m in body.messages]
    # A request without a question is refused before its scope is looked up.
    question = last_question(turns)
    check_length(question, settings.question_max_chars)
    where = resolve_scope(
        get_stores(settings).accounts,
        get_storage(settings),
        get_retriever(settings),
        access,
        collection=body.collection or settings.default_collection,
        scope=body.scope,
        tags=body.tags,
        card_ids=body.card_ids,
    )
    options = AnswerOptions(
        language=answer_language(_requested(body.language), question),
        quality=body.quality,
        temperature=body.temperature,
        max_tokens=body.max_completion_tokens or body.max_tokens,
        stop=body.stop_sequences(),
    )
    prompt_tokens = count_tokens(*(t.content for t in turns))
    completion_id, created = f"chatcmpl-{uuid.uuid4().hex}", int(time.time())
    if not body.stream:
        answer = await run_in_threadpool(service.answer, turns, where, options)
        return ChatCompletion(
            id=completion_id,
            created=created,
            model=body.model,
            choices=[
                Choice(
                    index=0,
                    message=ResponseMessage(content=answer.text),
                    finish_reason=answer.finish_reason,
                )
            ],
            usage=_usage(prompt_tokens, answer.completion_tokens),
            citations=answer.citations,
            grounding_supports=answer.grounding_supports,
            support_score=answer.support_score,
            language=answer.language,
            requested_language=options.language,
            answerability=answer.answerability,
            confidence=answer.confidence,
            refusal_reason=answer.refusal_reason,
        )
    events = service.stream(turns, where, options)
    # The first event is awaited a while before the response starts, so that a bad request or
    # an unreachable model is still an HTTP error, not a stream that fails at once.
    first = await first_event(events, settings.stream_keep_alive_s)
    include_usage = bool(body.stream_options and body.stream_options.include_usage)
    head = {
        "id": completion_id,
        "object": "chat.completion.chunk",
        "created": created,
        "model": body.model,
    }
    return StreamingResponse(
        keep_alive(
            _sse(
                request,
                events,
                first,
                head,
                prompt_tokens if include_usage else None,
                options.language,
            ),
            settings.stream_keep_alive_s,
        ),
        media_type="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )


async def _sse(
    request: Request,
    events: Generator[Delta | Finish, None, None],
    first: Awaitable[Delta | Finish],
    head: dict[str, Any],
    prompt_tokens: int | None,
    requested_language: str | None,
) -> AsyncGenerator[str, None]:
    """Chunks as ``data:`` lines; a failure ends the stream with an ``error`` chunk."""
    try:
        yield _data(head | {"choices": [_choice({"role": "assistant", "content": ""})]})
        event: Delta | Finish | None = await first
        while event is not None:
            if isinstance(event, Delta):
                yield _data(head | {"choices": [_choice({"content": event.text})]})
            else:
                yield _data(
                    head
                    | {
                        "choices": [_choice({}, event.finish_reason)],
                        "citations": [c.model_dump() for c in event.citations],
                        "grounding_supports": [g.model_dump() for g in event.grounding_supports],
                        "support_score": event.support_score,
                        "language": event.language,
                        "requested_language": requested_language,
                        "answerability": event.answerability,
                        "confidence": event.confidence,
                        "refusal_reason": event.refusal_reason,
                    }
                )
                if prompt_tokens is not None:
                    usage = _usage(prompt_tokens, event.completion_tokens)
                    yield _data(head | {"choices": [], "usage": usage.model_dump()})
                break
            if await request.is_disconnected():
                return
            event = await run_in_threadpool(next, events, None)
    except ApiError as error:
        record_stream_failure()
        yield _data(error.body())
    except BackendUnavailable as error:
        record_stream_failure()
        yield _data(unavailable(error).body())
    except Exception:
        logger.exception("chat completion stream failed")
        record_stream_failure()
        yield _data(ApiError(500, "internal.error", "The answer failed mid-stream.").body())
    finally:
        # Closing the pipeline closes the generator: a model stops generating.
        with anyio.CancelScope(shield=True):
            await run_in_threadpool(events.close)
    yield "data: [DONE]\n\n"


def _requested(language: str | None) -> str | None:
    code = (language or "").strip().lower()
    return None if code in ("", "auto") else code


def _choice(delta: dict[str, str], finish_reason: str | None = None) -> dict[str, Any]:
    return {"index": 0, "delta": delta, "finish_reason": finish_reason}


def _data(payload: dict[str, Any]) -> str:
    return f"data: {json.dumps(payload, ensure_ascii=False, separators=(',', ':'))}\n\n"


def _usage(prompt_tokens: int, completion_tokens: int) -> Usage:
    return Usage(
        prompt_tokens=prompt_tokens,
        completion_tokens=completion_tokens,
        total_tokens=prompt_tokens + completion_tokens,
    )
