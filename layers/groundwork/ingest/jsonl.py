"""JSONL of passages already cut, one JSON object a line, each with its metadata.

A line is either one passage (``text``) or one document with its ``paragraphs`` (strings, or
objects with ``text`` and ``n``, the paragraph number). Fields, all optional but ``text``:
``title``, ``author``, ``year``, ``url`` (or ``source_url``), ``heading``, ``heading_path``,
``reference`` (or ``n``), ``tags``, ``language``, ``period_start``, ``period_end``. The
extracted text is the passages' texts, a blank line apart.
"""

from __future__ import annotations

import json
from typing import Any

from groundwork.ingest.document import Document, Passage, TextBuilder


def parse_jsonl(text: str) -> Document:
    document = Document()
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as error:
            raise ValueError(f"line {number}: not JSON ({error.msg})") from None
        if not isinstance(row, dict):
            raise ValueError(f"line {number}: expected an object")
        if "paragraphs" in row:
            for paragraph in row["paragraphs"]:
                item = paragraph if isinstance(paragraph, dict) else {"text": paragraph}
                document.passages.append(_passage({**row, **item}, number))
        else:
            document.passages.append(_passage(row, number))
        document.title = document.title or _text(row.get("title"))
    built = TextBuilder()
    for passage in document.passages:
        passage.start, passage.end = built.add(passage.text)
    document.text = built.text
    return document


def _passage(row: dict[str, Any], number: int) -> Passage:
    text = _text(row.get("text"))
    if not text:
        raise ValueError(f"line {number}: no text")
    heading_path = [str(h) for h in row.get("heading_path") or []]
    if not heading_path and row.get("heading"):
        heading_path = [str(row["heading"])]
    return Passage(
        text,
        heading_path,
        reference=_text(row.get("reference", row.get("n"))),
        title=_text(row.get("title")),
        author=_text(row.get("author")),
        year=_text(row.get("year")),
        url=_text(row.get("url", row.get("source_url"))),
        tags=[str(t) for t in row.get("tags") or []],
        language=_text(row.get("language")),
        period_start=_text(row.get("period_start")),
        period_end=_text(row.get("period_end")),
    )


def _text(value: object) -> str | None:
    return str(value).strip() or None if value is not None else None
