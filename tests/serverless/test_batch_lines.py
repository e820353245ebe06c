"""Reading a batch input: good lines become requests, bad lines carry their reason."""

from __future__ import annotations

import itertools
import json

from hypothesis import given
from hypothesis import strategies as st

from groundwork.batch.assembly import FAILURES_LISTED, Totals
from groundwork.batch.lines import SeenIds, read_lines, stream_lines
from groundwork.batch.results import failure, success
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


def test_given_results_when_totalled_then_counts_mean_and_failures_are_reported() -> None:
    totals = Totals()
    for result in (
        success(1, "a", {"supportScore": 0.9, "citedChunks": [], "claims": []}),
        failure(2, None, ApiError(400, "line.invalid_json", "not JSON")),
        success(3, "c", {"supportScore": 0.5, "citedChunks": [], "claims": []}),
    ):
        totals.add(result)

    summary = totals.summary("s3://in/x.jsonl", "b1", "s3://out/results/x.jsonl/results.jsonl")

    assert summary == {
        "input": "s3://in/x.jsonl",
        "batch": "b1",
        "results": "s3://out/results/x.jsonl/results.jsonl",
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
        "failures_not_listed": 0,
    }


def test_given_many_failures_when_totalled_then_the_first_are_listed_and_the_rest_counted() -> None:
    totals = Totals()
    for line in range(1, FAILURES_LISTED + 51):
        totals.add(failure(line, f"q{line}", ApiError(400, "line.invalid_json", "not JSON")))

    summary = totals.summary("s3://in/x.jsonl", "b1", "s3://out/r")

    assert [f["line"] for f in summary["failures"]] == list(range(1, FAILURES_LISTED + 1))
    assert (summary["failed"], summary["failures_not_listed"]) == (FAILURES_LISTED + 50, 50)


@given(
    st.lists(st.sampled_from([b"a", b"{}", b" ", b"\t", b"\n", b"\r", b"\r\n"]), max_size=40),
    st.lists(st.integers(min_value=0, max_value=200), max_size=6),
)
def test_given_any_bytes_cut_anywhere_when_streamed_then_the_lines_are_splitlines(
    parts: list[bytes], cuts: list[int]
) -> None:
    data = b"".join(parts)
    bounds = sorted({min(cut, len(data)) for cut in cuts} | {0, len(data)})
    chunks = [data[a:b] for a, b in itertools.pairwise(bounds)]
    expected, start = [], 0
    for number, raw in enumerate(data.splitlines(keepends=True), start=1):
        end = start + len(raw.rstrip(b"\r\n"))
        if raw.strip():
            expected.append((number, start, end, data[start:end]))
        start += len(raw)

    streamed = [(line.number, line.start, line.end, line.raw) for line in stream_lines(chunks)]

    assert streamed == expected


def test_given_more_ids_than_one_merge_holds_then_each_repeat_is_found() -> None:
    seen = SeenIds()
    ids = [f"id-{n}" for n in range(3 * SeenIds._MERGE_AT + 7)]

    assert all(seen.add(value) for value in ids)
    assert not any(seen.add(value) for value in ids[:: SeenIds._MERGE_AT // 3])
    assert seen.add("a new one")


def test_given_an_invalid_line_with_an_id_then_a_later_line_with_it_is_a_duplicate() -> None:
    data = jsonl(
        {"id": "a", "answerCandidate": "x", "facts": "not a list"},
        {"id": "a", "answerCandidate": "x"},
    )

    codes = [line.error.code if line.error else None for line in read_lines(data)]

    assert codes == ["request.invalid", "line.duplicate_id"]
