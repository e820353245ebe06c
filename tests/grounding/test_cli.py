"""``groundwork check FILE.json``: the API's JSON in, the API's JSON out, without a server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from groundwork.cli.main import main


def test_given_a_request_file_when_checked_then_the_response_json_is_printed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    request = {
        "answerCandidate": "Here is what I found. Toronto is the capital of Ontario.",
        "facts": [{"factText": "Toronto is the capital of Ontario", "attributes": {"a": "b"}}],
        "groundingSpec": {"enableClaimLevelScore": "true"},
    }
    path = tmp_path / "request.json"
    path.write_text(json.dumps(request), encoding="utf-8")
    assert main(["check", str(path)]) == 0
    response = json.loads(capsys.readouterr().out)
    assert response["supportScore"] >= 0.9
    assert response["citedChunks"] == [
        {"chunkText": "Toronto is the capital of Ontario", "source": "0"}
    ]
    assert [c["groundingCheckRequired"] for c in response["claims"]] == [False, True]
    assert "score" in response["claims"][1]
    assert "score" not in response["claims"][0]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "invalid request"),
        ('{"facts": []}', "invalid request"),
        (
            '{"answerCandidate": "x", "groundingSpec": {"citationThreshold": 2}}',
            "invalid_threshold",
        ),
    ],
)
def test_given_a_bad_request_file_when_checked_then_exit_2_with_the_reason(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, message: str
) -> None:
    path = tmp_path / "request.json"
    path.write_text(content, encoding="utf-8")
    assert main(["check", str(path)]) == 2
    assert message in capsys.readouterr().err


def test_given_a_missing_file_when_checked_then_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["check", str(tmp_path / "absent.json")]) == 2
    assert "cannot read" in capsys.readouterr().err
