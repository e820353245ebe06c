"""Result lines, and their keys in the output bucket."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from groundwork.errors import ApiError


#: Where each line's result waits until its batch is assembled (expired by a lifecycle rule).
PARTS_PREFIX = "parts/"


@dataclass(frozen=True)
class Layout:
    """Where one input's outputs go: ``{prefix}{input key}/results.jsonl``, ``summary.json``,
    and one part per line under ``parts/{batch}/`` (the batch is the input's version, so a
    re-uploaded input never mixes with the parts of the one before, nor two inputs' parts)."""

    bucket: str
    prefix: str
    input_key: str
    batch: str

    @property
    def base(self) -> str:
        return f"{self.prefix}{self.input_key}/"

    @property
    def results_key(self) -> str:
        return self.base + "results.jsonl"

    @property
    def summary_key(self) -> str:
        return self.base + "summary.json"

    @property
    def parts_prefix(self) -> str:
        # Outside the results' prefix: the output bucket's lifecycle rule expires ``parts/``.
        return f"{PARTS_PREFIX}{self.batch}/"

    def part_key(self, line: int) -> str:
        return f"{self.parts_prefix}{line:09d}.json"


def success(line: int, line_id: str, response: dict[str, Any]) -> dict[str, Any]:
    return {"id": line_id, "line": line, "response": response}


def failure(line: int, line_id: str | None, error: ApiError) -> dict[str, Any]:
    return {
        "id": line_id,
        "line": line,
        "error": {"code": error.code, "message": error.message, "param": error.param},
    }
