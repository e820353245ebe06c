"""Reading a batch input: one check-grounding request per JSONL line, each with an ``id``.

The input is read as a stream (:func:`stream_lines`): one chunk and one line in memory at a
time, whatever the object's size. Ids must be unique within the object, so a
:class:`LineReader` remembers every id it has seen, in 8 bytes each (:class:`SeenIds`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from groundwork.api.schemas.grounding import CheckGroundingRequest
from groundwork.errors import ApiError
from groundwork.grounding.service import validate

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator

    import numpy as np

#: A line ends at \r\n, \n or \r, as ``bytes.splitlines`` splits.
_LINE_END = re.compile(rb"\r\n|\n|\r")


@dataclass(frozen=True)
class RawLine:
    """A non-blank line of the input and where it is."""

    number: int  # 1-based, as an editor shows it (blank lines count)
    start: int  # byte offsets into the object, end exclusive
    end: int
    raw: bytes


@dataclass(frozen=True)
class Line:
    """A non-blank line of the input: where its bytes are, and its request or why it has none."""

    number: int
    start: int
    end: int
    id: str | None
    request: CheckGroundingRequest | None = None
    error: ApiError | None = None


def stream_lines(chunks: Iterable[bytes]) -> Iterator[RawLine]:
    """The non-blank lines of a byte stream cut into ``chunks`` anywhere, in order."""
    buffer = b""
    offset = 0  # of the buffer's first byte in the object
    number = 0
    for chunk in chunks:
        buffer += chunk
        position = 0
        for end in _LINE_END.finditer(buffer):
            # A \r last in the buffer may be the first half of a \r\n: wait for what follows.
            if end.group() == b"\r" and end.end() == len(buffer):
                break
            number += 1
            if buffer[position : end.start()].strip():
                yield RawLine(
                    number, offset + position, offset + end.start(), buffer[position : end.start()]
                )
            position = end.end()
        buffer = buffer[position:]
        offset += position
    if buffer.strip():  # the last line, with no line end
        raw = buffer.rstrip(b"\r")
        yield RawLine(number + 1, offset, offset + len(raw), raw)


def line_id(value: Any) -> str | None:
    """The line's ``id`` as a string (a number is accepted as its text), or None."""
    found = value.get("id") if isinstance(value, dict) else None
    if isinstance(found, int | float) and not isinstance(found, bool):
        found = str(found)
    return found if isinstance(found, str) and found.strip() else None


def parse_line(number: int, start: int, end: int, raw: bytes) -> Line:
    """The line's request, validated as the API would validate it, or the first problem."""
    try:
        value: Any = json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        return Line(number, start, end, None, error=_bad("line.invalid_json", f"not JSON: {exc}"))
    if not isinstance(value, dict):
        return Line(number, start, end, None, error=_bad("line.not_object", "not a JSON object"))
    found = line_id(value)
    if found is None:
        error = _bad("line.missing_id", "every line needs an 'id' (a non-empty string)", "id")
        return Line(number, start, end, None, error=error)
    try:
        request = CheckGroundingRequest.model_validate(value)
        validate(request.to_domain())
    except ValidationError as exc:
        first = exc.errors()[0]
        param = ".".join(str(part) for part in first["loc"]) or None
        error = _bad("request.invalid", f"{param or 'line'}: {first['msg']}", param)
        return Line(number, start, end, found, error=error)
    except ApiError as exc:
        return Line(number, start, end, found, error=exc)
    return Line(number, start, end, found, request=request)


class SeenIds:
    """The ids met so far, as 64-bit hashes (8 bytes each: 8 MB for a million lines): a sorted
    array, and the latest in a set until there are enough to merge. Two ids of one object
    share a hash with a probability of about 3 in 100 million at a million lines; the later
    would then be refused as a duplicate. Hashes are Python's, so one process builds the set."""

    _MERGE_AT = 1 << 16

    def __init__(self) -> None:
        import numpy as np

        self._np = np
        self._sorted: np.ndarray[Any, np.dtype[np.int64]] = np.empty(0, dtype=np.int64)
        self._recent: set[int] = set()

    def add(self, value: str) -> bool:
        """True when ``value`` is new (and is now seen)."""
        key = hash(value)
        if key in self._recent:
            return False
        if self._sorted.size:
            at = int(self._np.searchsorted(self._sorted, key))
            if at < self._sorted.size and int(self._sorted[at]) == key:
                return False
        self._recent.add(key)
        if len(self._recent) >= self._MERGE_AT:
            added = self._np.fromiter(self._recent, dtype=self._np.int64, count=len(self._recent))
            self._sorted = self._np.union1d(self._sorted, added)
            self._recent.clear()
        return True


class LineReader:
    """Parses lines in order; a repeated id is an error on the later lines, since results are
    matched to requests by id. Any line with an id claims it, valid or not."""

    def __init__(self) -> None:
        self._seen = SeenIds()

    def read(self, line: RawLine) -> Line:
        parsed = parse_line(line.number, line.start, line.end, line.raw)
        if parsed.id is not None and not self._seen.add(parsed.id):
            message = f"id {parsed.id!r} already appears on an earlier line"
            return Line(
                parsed.number,
                parsed.start,
                parsed.end,
                parsed.id,
                error=_bad("line.duplicate_id", message),
            )
        return parsed

    def remember(self, line: RawLine) -> None:
        """Note the id of a line read in an earlier attempt, without validating it again."""
        try:
            found = line_id(json.loads(line.raw))
        except (UnicodeDecodeError, json.JSONDecodeError):
            return
        if found is not None:
            self._seen.add(found)


def read_lines(data: bytes) -> list[Line]:
    """Every non-blank line of ``data``, parsed (an input held whole: tests, benchmarks)."""
    reader = LineReader()
    return [reader.read(line) for line in stream_lines([data])]


def _bad(code: str, message: str, param: str | None = None) -> ApiError:
    return ApiError(400, code, message, param=param)
