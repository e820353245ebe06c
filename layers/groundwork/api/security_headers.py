"""A strict Content-Security-Policy on every response of the app: the page and the API.

The page is plain modules from ``/static`` (no inline script or handler, no CDN), so it runs
under ``default-src 'self'``; a script smuggled into it (a ``javascript:`` link, injected
markup) is not run. FastAPI's own ``/docs`` and ``/redoc`` pages load Swagger UI and ReDoc from a
CDN with an inline script: they are left without the header, and show no user data.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Message, Receive, Scope, Send

CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
_HEADERS = [
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
    (b"x-content-type-options", b"nosniff"),
]


class SecurityHeaders:
    """Adds the policy when a response starts, streamed (SSE) or not."""

    def __init__(self, app: ASGIApp, *, exempt: frozenset[str] = frozenset()) -> None:
        self.app = app
        self.exempt = exempt

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] in self.exempt:
            await self.app(scope, receive, send)
            return

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *_HEADERS]
            await send(message)

        await self.app(scope, receive, sending)
