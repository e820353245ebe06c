"""Errors that reach clients: an HTTP status and a ``<entity>.<reason>`` code."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

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
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.param = param
        self.type = type_ or ("invalid_request_error" if status < 500 else "server_error")

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
