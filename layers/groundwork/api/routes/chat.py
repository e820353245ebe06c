"""``POST /v1/chat``: a native chat answer, streamed as Server-Sent Events or returned whole.

Events: ``token`` (``{"text": …}`` deltas), then ``done`` (:class:`ChatDone`), or ``error``
(``{"error": {code, message, …}}``) when the answer fails mid-stream. Every event has an
``id:`` line, counting from 1. ``Last-Event-ID`` is logged, not resumed: a client retries
with the same ``request_id`` instead.
"""

from __future__ import annotations

import json
import logging
from contextlib import closing
from typing import TYPE_CHECKING, Annotated, Any

import anyio
from fastapi import APIRouter, Depends, Request
from fastapi.responses import JSONResponse, StreamingResponse
from starlette.concurrency import run_in_threadpool

from groundwork.answer.verification import GroundedVerifier
from groundwork.api.dependencies import SettingsDep  # noqa: TC001
from groundwork.api.keepalive import first_event, keep_alive
from groundwork.api.schemas.chat import ChatDone
from groundwork.api.schemas.errors import error_responses
from groundwork.auth.keys import CurrentUser  # noqa: TC001
from groundwork.chat.answering import Answerer
from groundwork.chat.request import ChatRequest  # noqa: TC001
from groundwork.chat.service import ChatConfig, ChatEvent, ChatService, Done, Pending, Token
from groundwork.errors import ApiError, BackendUnavailable, unavailable
from groundwork.generation.factory import get_generator
from groundwork.grounding.factory import get_verifier
from groundwork.retrieval.factory import get_retriever
from groundwork.storage.factory import get_storage, get_stores

if TYPE_CHECKING:
    from collections.abc import AsyncGenerator, Awaitable, Generator

    from fastapi import Response

logger = logging.getLogger(__name__)

router = APIRouter(prefix="/v1", tags=["chat"])

_STREAM_DOC = (
    "With `stream: true`: `text/event-stream` of `token` events, then one `done` event "
    "(the JSON below) or an `error` event."
)


def chat_service(settings: SettingsDep) -> ChatService:
    answerer = Answerer(
        get_retriever(settings),
        get_generator(settings),
        settings.retrieval_k,
        GroundedVerifier(get_verifier(settings)),
    )
    config = ChatConfig(
        lease_seconds=settings.chat_lease_seconds,
        wait_seconds=settings.chat_wait_seconds,
        cache_ttl_seconds=settings.chat_cache_ttl_seconds,
        question_max_chars=settings.question_max_chars,
    )
    return ChatService(get_stores(settings), get_storage(settings), answerer, config)


ChatServiceDep = Annotated[ChatService, Depends(chat_service)]


@router.post(
    "/chat",
    response_model=ChatDone,
    responses={
        200: {"content": {"text/event-stream": {}}, "description": _STREAM_DOC},
        **error_responses(400, 401, 403, 404, 409, 429, 502, 504),
    },
)
async def chat(
    body: ChatRequest,
    request: Request,
    user: CurrentUser,
    service: ChatServiceDep,
    settings: SettingsDep,
) -> Response:
    last_event_id = request.headers.get("last-event-id")
    if last_event_id:
        logger.info(
            "Last-Event-ID %s ignored (request_id %s): streams are not resumed",
            last_event_id,
            body.request_id,
        )
    pending = await run_in_threadpool(service.prepare, user, body)
    pauses = service.pauses()
    while (begun := await run_in_threadpool(_begin, service, pending, body.stream)) is None:
        # A duplicate of a request_id being answered waits here, holding no worker thread:
        # a thread per waiting duplicate would starve the pool the answer itself needs.
        await anyio.sleep(next(pauses))
    if isinstance(begun, dict):
        return JSONResponse(begun)
    # The first event is awaited a while before the response starts, so that a failure
    # before the first token is still an HTTP error; a slower one is awaited by the stream,
    # which sends keep-alives meanwhile.
    first = await first_event(begun, settings.stream_keep_alive_s)
    return StreamingResponse(
        keep_alive(_sse(request, begun, first), settings.stream_keep_alive_s),
        media_type="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )


def _begin(
    service: ChatService, pending: Pending, stream: bool
) -> dict[str, Any] | Generator[ChatEvent, None, None] | None:
    """None while another request answers; else the whole answer, or the stream's events,
    whose first the caller pulls at once: closing a started generator releases the claim."""
    run = service.attempt(pending)
    if run is None:
        return None
    events = run.events()
    if not stream:
        return _done_of(events)
    return events


def _done_of(events: Generator[ChatEvent, None, None]) -> dict[str, Any]:
    with closing(events):
        for event in events:
            if isinstance(event, Done):
                return event.payload
    raise AssertionError("a chat run always ends with done")


async def _sse(
    request: Request, events: Generator[ChatEvent, None, None], first: Awaitable[ChatEvent]
) -> AsyncGenerator[str, None]:
    number = 0
    try:
        event: ChatEvent | None = await first
        while event is not None:
            number += 1
            if isinstance(event, Token):
                yield _event(number, "token", {"text": event.text})
            else:
                yield _event(number, "done", event.payload)
                return
            if await request.is_disconnected():
                logger.info("chat client disconnected after %d events", number)
                return
            event = await run_in_threadpool(next, events, None)
    except ApiError as error:
        yield _event(number + 1, "error", error.body())
    except BackendUnavailable as error:
        yield _event(number + 1, "error", unavailable(error).body())
    except Exception:
        logger.exception("chat stream failed")
        yield _event(number + 1, "error", _internal().body())
    finally:
        # Closing stops the generation; an unfinished run releases its request_id.
        with anyio.CancelScope(shield=True):
            await run_in_threadpool(events.close)


def _internal() -> ApiError:
    return ApiError(500, "internal.error", "The answer failed mid-stream.")


def _event(number: int, name: str, data: dict[str, Any]) -> str:
    encoded = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return f"id: {number}\nevent: {name}\ndata: {encoded}\n\n"
