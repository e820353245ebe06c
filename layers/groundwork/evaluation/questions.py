"""The questions of an evaluation: a JSONL file, one question per line.

Only ``question`` is required. ``answers`` (or ``answer``) are fragments an answering first
sentence contains; ``source`` names the documents that answer (their path as ingested, their
URL or their title); ``answerable: false`` marks a question the documents do not answer.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

if TYPE_CHECKING:
    from pathlib import Path


class QuestionsError(ValueError):
    """A questions file that cannot be read, with the line at fault."""


class EvalQuestion(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)

    id: str
    question: str = Field(min_length=1)
    answerable: bool = True
    answers: tuple[str, ...] = ()
    source: tuple[str, ...] = ()
    section: str | None = None
    language: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _lists(cls, data: Any) -> Any:
        """``answer`` for one answer; a single string where a list is expected."""
        if not isinstance(data, dict):
            return data
        data = dict(data)
        if "answers" not in data and "answer" in data:
            data["answers"] = data.pop("answer")
        for key in ("answers", "source"):
            if isinstance(data.get(key), str):
                data[key] = [data[key]]
            elif data.get(key) is None:
                data.pop(key, None)
        if not str(data.get("question", "")).strip():
            data["question"] = ""
        return data


def load_questions(path: Path) -> list[EvalQuestion]:
    """Every question of the file; blank lines are skipped, ids default to the line number."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise QuestionsError(f"{path}: {error}") from None
    questions, seen = [], set()
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            if not isinstance(row, dict):
                raise QuestionsError(f"{path}:{number}: not a JSON object")
            row.setdefault("id", f"line-{number}")
            row["id"] = str(row["id"])
            question = EvalQuestion.model_validate(row)
        except json.JSONDecodeError as error:
            raise QuestionsError(f"{path}:{number}: not JSON ({error.msg})") from None
        except ValidationError as error:
            first = error.errors()[0]
            where = ".".join(str(part) for part in first["loc"]) or "line"
            raise QuestionsError(f"{path}:{number}: {where}: {first['msg']}") from None
        if question.id in seen:
            raise QuestionsError(f"{path}:{number}: id {question.id!r} is repeated")
        seen.add(question.id)
        questions.append(question)
    if not questions:
        raise QuestionsError(f"{path}: no questions")
    return questions
