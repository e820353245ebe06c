"""Streams kept alive while an answer is prepared.

Retrieval and a model's first token can take longer than proxies and API Gateway (5 minutes on
a Regional endpoint) let a response stay silent. A streamed route waits for its first event a
short while (``stream_keep_alive_s``): one that comes, or fails, within it is answered as before,
a failure being an HTTP error. After it the stream starts, and whenever it has been quiet that
long an SSE comment line (``: keep-alive``) goes out; clients ignore comments (the openai SDK
included), and a failure is then the stream's error event.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, TypeVar

import anyio
from starlette.concurrency import run_in_threadpool

if TYPE_CHECKING:
    from collections.abc import AsyncGenerator, AsyncIterator, Iterator

T = TypeVar("T")

#: An SSE comment: a line starting with a colon, which every event-stream parser skips.
KEEP_ALIVE = ": keep-alive\n\n"


async def first_event(events: Iterator[T], wait_s: float) -> asyncio.Future[T]:
    """The first of ``events``, pulled in a thread. Done if it came within ``wait_s`` (its
    failure is raised here, before any response); pending, for the stream to await, if not."""
    first = asyncio.ensure_future(run_in_threadpool(next, events))
    await asyncio.wait({first}, timeout=wait_s)
    if first.done():
        first.result()
    return first


async def keep_alive(chunks: AsyncGenerator[str, None], interval_s: float) -> AsyncIterator[str]:
    """``chunks``, with :data:`KEEP_ALIVE` whenever ``interval_s`` passes without one."""
    pending: asyncio.Future[str] | None = None
    try:
        while True:
            pending = asyncio.ensure_future(anext(chunks))
            while not (await asyncio.wait({pending}, timeout=interval_s))[0]:
                yield KEEP_ALIVE
            try:
                chunk = pending.result()
            except StopAsyncIteration:
                return
            yield chunk
    finally:
        if pending is None or pending.done():
            with anyio.CancelScope(shield=True):
                await chunks.aclose()
        else:
            # The pull waits on a thread, which cannot be interrupted, and cancelling it would
            # cut ``chunks``' own cleanup short: ``chunks`` is closed once the pull is back.
            pending.add_done_callback(lambda pulled: _close_later(chunks, pulled))


#: Closings under way, kept from the garbage collector until they are done.
_closing: set[asyncio.Task[None]] = set()


def _close_later(chunks: AsyncGenerator[str, None], pulled: asyncio.Future[str]) -> None:
    if not pulled.cancelled():
        pulled.exception()  # retrieved: the stream is over, nobody else will read it
    task = asyncio.ensure_future(chunks.aclose())
    _closing.add(task)
    task.add_done_callback(_closing.discard)
