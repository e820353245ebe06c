"""Reading a batch input: good lines become requests, bad lines carry their reason."""

from __future__ import annotations

import json

from groundwork.batch.lines import read_lines
from groundwork.batch.results import failure, success, summarize
from groundwork.errors import ApiError

FACTS = [{"factText": "Titanic was directed by James Cameron."}]


def jsonl(*rows: object) -> bytes:
    return b"".join(
        (row if isinstance(row, bytes) else json.dumps(row).encode()) + b"\n" for row in rows
    )


def test_given_good_lines_when_read_then_each_has_its_request_and_byte_range() -> None:
    data = jsonl(
        {"id": "a", "answerCandidate": "Titanic was directed by James Cameron.", "facts": FACTS},
        {"id": 7, "answerCandidate": "Café crème.", "facts": FACTS},
    )

    lines = read_lines(data)

    assert [(line.number, line.id, line.error) for line in lines] == [
        (1, "a", None),
        (2, "7", None),
    ]
    assert [json.loads(data[line.start : line.end])["answerCandidate"] for line in lines] == [
        "Titanic was directed by James Cameron.",
        "Café crème.",
    ]


def test_given_blank_lines_and_crlf_when_read_then_blanks_are_skipped_and_numbers_kept() -> None:
    data = b'{"id": "a", "answerCandidate": "x"}\r\n\r\n   \n{"id": "b", "answerCandidate": "y"}'

    lines = read_lines(data)

    assert [(line.number, line.id, line.error) for line in lines] == [
        (1, "a", None),
        (4, "b", None),
    ]
    assert data[lines[0].start : lines[0].end].endswith(b"}")


def test_given_malformed_lines_when_read_then_each_reports_its_own_reason() -> None:
    data = jsonl(
        b"{not json",
        b"[1, 2]",
        {"answerCandidate": "no id"},
        {"id": "", "answerCandidate": "empty id"},
        {"id": "facts", "answerCandidate": "x", "facts": "not a list"},
        {"id": "threshold", "answerCandidate": "x", "groundingSpec": {"citationThreshold": 2}},
        {"id": "ok", "answerCandidate": "x"},
        {"id": "ok", "answerCandidate": "again"},
        {"id": "many", "answerCandidate": "x", "facts": [{"factText": "f"}] * 201},
    )

    codes = [(line.id, line.error.code if line.error else None) for line in read_lines(data)]

    assert codes == [
        (None, "line.invalid_json"),
        (None, "line.not_object"),
        (None, "line.missing_id"),
        (None, "line.missing_id"),
        ("facts", "request.invalid"),
        ("threshold", "grounding_spec.invalid_threshold"),
        ("ok", None),
        ("ok", "line.duplicate_id"),
        ("many", "facts.too_many"),
    ]


def test_given_results_when_summarized_then_counts_mean_and_failures_are_reported() -> None:
    results = [
        success(1, "a", {"supportScore": 0.9, "citedChunks": [], "claims": []}),
        failure(2, None, ApiError(400, "line.invalid_json", "not JSON")),
        success(3, "c", {"supportScore": 0.5, "citedChunks": [], "claims": []}),
    ]

    summary = summarize("s3://in/x.jsonl", results)

    assert summary == {
        "input": "s3://in/x.jsonl",
        "total": 3,
        "succeeded": 2,
        "failed": 1,
        "mean_support_score": 0.7,
        "failures": [
            {
                "line": 2,
                "id": None,
                "code": "line.invalid_json",
                "message": "not JSON",
                "param": None,
            }
        ],
    }
