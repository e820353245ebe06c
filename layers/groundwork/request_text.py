"""A request body as text: UTF-8, as RFC 8259 requires of JSON exchanged between systems, with
no lone UTF-16 surrogate in any string.

A lone surrogate is not text: it cannot be encoded, hashed or tokenized, so a body holding one
is refused before any route reads it, whatever form it came in: a JSON escape (``"\\ud800"``),
raw bytes that are not UTF-8 (CESU-8's ``ED A0 80``, Latin-1, an overlong form), or a whole body
in UTF-16 or UTF-32, which ``json.loads`` would otherwise detect and decode, lone surrogates
and all. The refusal is 400 ``request.invalid_unicode`` with ``param`` naming the field that
holds the bad text (a key holding it: the object holding the key), or ``body`` when the body as
a whole is not UTF-8 or its bad bytes are not inside a JSON string.

Free of FastAPI: the app's body middleware and the functions that answer API Gateway events
themselves (``groundwork.http_events``) check bodies with the same code.
"""

from __future__ import annotations

import json
import re
from typing import Any

from groundwork.errors import ApiError

#: A JSON escape of a UTF-16 surrogate: only a body with one can decode to a lone surrogate.
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")
#: Lone surrogates, and the ``surrogateescape`` stand-ins of bytes that are not UTF-8.
_SURROGATE = re.compile("[\ud800-\udfff]")
_UTF8 = frozenset({"utf-8", "utf-8-sig"})


def check_body(body: bytes) -> None:
    """Raise 400 ``request.invalid_unicode`` unless ``body`` is UTF-8 text (a UTF-8 byte order
    mark is allowed, as RFC 8259 lets parsers do) without a lone surrogate in any JSON string."""
    if not body:
        return
    encoding = json.detect_encoding(body)
    if encoding not in _UTF8:
        raise _invalid_unicode(
            "body",
            f"The request body is not UTF-8 (it reads as {encoding.upper()}): "
            "send JSON encoded as UTF-8.",
        )
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        # Each byte that is not UTF-8 becomes a lone surrogate, so the search below finds the
        # string it is in.
        text = body.decode("utf-8", "surrogateescape")
        broken = True
    else:
        if not _SURROGATE_ESCAPE.search(body):
            return
        broken = False
    try:
        document = json.loads(text.removeprefix("\ufeff"))
    except (ValueError, RecursionError):
        if broken:
            raise _invalid_unicode("body", "The request body is not valid UTF-8.") from None
        return  # UTF-8, but not JSON: the route refuses it as such
    path = _lone_surrogate(document)
    if path is None:
        if broken:  # bytes that are not UTF-8 outside any string: JSON's own syntax is broken
            raise _invalid_unicode("body", "The request body is not valid UTF-8.")
        return
    reason = "bytes that are not UTF-8" if broken else "a lone UTF-16 surrogate"
    if not path:
        raise _invalid_unicode("body", f"A key of the request body holds {reason}.")
    param = ".".join(str(part) for part in path)
    raise _invalid_unicode(param, f"{param} is not valid Unicode text: it holds {reason}.")


def _invalid_unicode(param: str, message: str) -> ApiError:
    return ApiError(400, "request.invalid_unicode", message, param=param)


def _lone_surrogate(document: Any) -> list[str | int] | None:
    """Where the first string with a lone surrogate is (a path of keys and indexes); a key
    with one is reported by the path of the object holding it. Iterative: JSON may nest
    deeper than Python's recursion limit."""
    stack: list[tuple[Any, list[str | int]]] = [(document, [])]
    while stack:
        value, path = stack.pop()
        if isinstance(value, str):
            if _SURROGATE.search(value):
                return path
        elif isinstance(value, dict):
            for key, item in reversed(value.items()):
                if _SURROGATE.search(key):
                    return path
                stack.append((item, [*path, key]))
        elif isinstance(value, list):
            stack.extend((item, [*path, index]) for index, item in reversed(list(enumerate(value))))
    return None
