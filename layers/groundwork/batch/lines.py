"""Reading a batch input: one check-grounding request per JSONL line, each with an ``id``."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from groundwork.api.schemas.grounding import CheckGroundingRequest
from groundwork.errors import ApiError
from groundwork.grounding.service import validate

if TYPE_CHECKING:
    from collections.abc import Iterator


@dataclass(frozen=True)
class Line:
    """A non-blank line of the input: where its bytes are, and its request or why it has none."""

    number: int  # 1-based, as an editor shows it
    start: int  # byte offsets into the object, end exclusive
    end: int
    id: str | None
    request: CheckGroundingRequest | None = None
    error: ApiError | None = None


def split_lines(data: bytes) -> Iterator[tuple[int, int, int]]:
    """``(number, start, end)`` of each non-blank line; blank lines are no requests."""
    start = 0
    for number, raw in enumerate(data.splitlines(keepends=True), start=1):
        end = start + len(raw.rstrip(b"\r\n"))
        if raw.strip():
            yield number, start, end
        start += len(raw)


def parse_line(number: int, start: int, end: int, raw: bytes) -> Line:
    """The line's request, validated as the API would validate it, or the first problem."""
    try:
        value: Any = json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        return Line(number, start, end, None, error=_bad("line.invalid_json", f"not JSON: {exc}"))
    if not isinstance(value, dict):
        return Line(number, start, end, None, error=_bad("line.not_object", "not a JSON object"))
    line_id = value.get("id")
    if isinstance(line_id, int | float) and not isinstance(line_id, bool):
        line_id = str(line_id)
    if not isinstance(line_id, str) or not line_id.strip():
        error = _bad("line.missing_id", "every line needs an 'id' (a non-empty string)", "id")
        return Line(number, start, end, None, error=error)
    try:
        request = CheckGroundingRequest.model_validate(value)
        validate(request.to_domain())
    except ValidationError as exc:
        first = exc.errors()[0]
        param = ".".join(str(part) for part in first["loc"]) or None
        error = _bad("request.invalid", f"{param or 'line'}: {first['msg']}", param)
        return Line(number, start, end, line_id, error=error)
    except ApiError as exc:
        return Line(number, start, end, line_id, error=exc)
    return Line(number, start, end, line_id, request=request)


def read_lines(data: bytes) -> list[Line]:
    """Every non-blank line parsed; a repeated id is an error on the later lines, since results
    are matched to requests by id."""
    lines: list[Line] = []
    seen: set[str] = set()
    for number, start, end in split_lines(data):
        line = parse_line(number, start, end, data[start:end])
        if line.error is None and line.id in seen:
            message = f"id {line.id!r} already appears on an earlier line"
            line = Line(number, start, end, line.id, error=_bad("line.duplicate_id", message))
        elif line.error is None and line.id is not None:
            seen.add(line.id)
        lines.append(line)
    return lines


def _bad(code: str, message: str, param: str | None = None) -> ApiError:
    return ApiError(400, code, message, param=param)
