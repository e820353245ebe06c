"""Every request body is read here, whole, before a route parses it.

- At most ``request_max_bytes`` (``check_request_max_bytes`` on check grounding, whose 200
  facts of 10,000 characters need more): a larger body gets 413 ``request.too_large`` as
  soon as its ``Content-Length`` says so, or as soon as the bytes read pass the limit, so a
  huge body is never held in memory nor parsed.
- Within ``request_body_timeout_s``: a client that stops sending mid-body gets 408
  ``request.timeout`` and its connection is closed, instead of holding it open for ever.
- As UTF-8 text with no lone surrogate in any JSON string (``groundwork.request_text``): 400
  ``request.invalid_unicode``, ``param`` naming where the bad text is.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import anyio
from fastapi.responses import JSONResponse

from groundwork.errors import ApiError
from groundwork.request_text import check_body

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Message, Receive, Scope, Send


class RequestBodyLimits:
    """ASGI middleware: the body is buffered under the limits, then handed on unchanged."""

    def __init__(
        self, app: ASGIApp, *, max_bytes: int, check_max_bytes: int, timeout_s: float
    ) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.check_max_bytes = check_max_bytes
        self.timeout_s = timeout_s

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.check_max_bytes if scope["path"].endswith(":check") else self.max_bytes
        try:
            body = await self._read(scope, receive, limit)
        except ApiError as error:
            # Closing: what is left of the body is never read.
            response = JSONResponse(
                error.body(), status_code=error.status, headers={"Connection": "close"}
            )
            await response(scope, receive, send)
            return
        if body is None:
            return  # the client left before sending its body: nobody to answer
        try:
            check_body(body)
        except ApiError as error:  # the body was read whole: the connection may serve more
            await JSONResponse(error.body(), status_code=error.status)(scope, receive, send)
            return
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if replayed:
                return await receive()  # what follows the body: a disconnect
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self.app(scope, replay, send)

    async def _read(self, scope: Scope, receive: Receive, limit: int) -> bytes | None:
        if _declared_length(scope) > limit:
            raise _too_large(limit)
        chunks: list[bytes] = []
        size = 0
        with anyio.move_on_after(self.timeout_s) as timer:
            while True:
                message = await receive()
                if message["type"] == "http.disconnect":
                    return None
                chunk = message.get("body", b"")
                size += len(chunk)
                if size > limit:
                    raise _too_large(limit)
                chunks.append(chunk)
                if not message.get("more_body", False):
                    return b"".join(chunks)
        assert timer.cancelled_caught
        raise ApiError(
            408,
            "request.timeout",
            f"The request body did not arrive within {self.timeout_s:g} seconds.",
        )


def _declared_length(scope: Scope) -> int:
    for name, value in scope["headers"]:
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return 0  # the server refuses a malformed length itself
    return 0


def _too_large(limit: int) -> ApiError:
    return ApiError(413, "request.too_large", f"The request body is larger than {limit:,} bytes.")
