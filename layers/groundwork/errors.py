"""Errors that reach clients: an HTTP status and a ``<entity>.<reason>`` code."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence


class ApiError(Exception):
    """A failure a client can act on; rendered in the OpenAI error shape."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        *,
        param: str | None = None,
        type_: str | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.param = param
        self.type = type_ or ("invalid_request_error" if status < 500 else "server_error")
        #: Response headers that go with the error (``Retry-After``).
        self.headers = dict(headers or {})

    def body(self) -> dict[str, dict[str, str | None]]:
        return {
            "error": {
                "message": self.message,
                "type": self.type,
                "param": self.param,
                "code": self.code,
            }
        }


def invalid_request(errors: Sequence[Mapping[str, Any]]) -> ApiError:
    """400 for pydantic's validation errors: ``request.invalid_json`` (``param`` is ``body``)
    or ``request.invalid``, with the first offending field as ``param``."""
    first = errors[0] if errors else {}
    location = [str(part) for part in first.get("loc", ()) if part != "body"]
    param = ".".join(location) or None
    if first.get("type") == "json_invalid":
        # pydantic locates the error by a character offset ("18"), which names no field.
        message = "The request body is not valid JSON."
        return ApiError(400, "request.invalid_json", message, param="body")
    message = f"{param or 'body'}: {first.get('msg', 'invalid value')}"
    if len(errors) > 1:
        message += f" (and {len(errors) - 1} more problem{'s' if len(errors) > 2 else ''})"
    return ApiError(400, "request.invalid", message, param=param)


class BackendUnavailable(Exception):
    """A backend a request needs did not answer within its time budget, or is known to be down
    (its circuit is open, ``groundwork.circuit``). Subclasses name the backend; every route
    answers 503 with their code (:func:`unavailable`), a stream ends with it as its error."""

    code: ClassVar[str] = "backend.unavailable"
    what: ClassVar[str] = "A backend of the service"

    def __init__(self, message: str, *, retry_after: float | None = None) -> None:
        super().__init__(message)
        #: Seconds after which a retry may find the backend back (the circuit's cool-down).
        self.retry_after = retry_after


#: ``Retry-After`` of a failure that says nothing of when to retry.
DEFAULT_RETRY_AFTER_S = 2


def unavailable(error: BackendUnavailable) -> ApiError:
    """503 with the backend's code and ``Retry-After``; nothing of the request was kept, so
    retrying it (with the same ``request_id``, if any) is safe."""
    seconds = max(1, math.ceil(error.retry_after or DEFAULT_RETRY_AFTER_S))
    return ApiError(
        503,
        error.code,
        f"{error.what} is unavailable; retry in {seconds} s.",
        headers={"Retry-After": str(seconds)},
    )
