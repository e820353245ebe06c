"""``groundwork invoke FUNCTION EVENT``: a handler on an event, with a Lambda-like context."""

from __future__ import annotations

import json

import pytest

from groundwork.cli.invoke import FUNCTIONS, LambdaContext, find_function
from groundwork.cli.main import main
from tests.serverless.conftest import EVENTS, Aws


def test_given_the_grounding_event_when_invoked_then_the_result_alone_is_on_stdout(
    aws: Aws, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(EVENTS.parent)

    code = main(["invoke", "grounding", "events/grounding_check.json"])

    out, err = capsys.readouterr()
    assert code == 0
    result = json.loads(out)
    assert result["statusCode"] == 200
    assert json.loads(result["body"])["supportScore"] > 0.9
    assert '"SupportScore"' in err  # the EMF metrics went to stderr


def test_given_a_logical_id_when_looked_up_then_it_names_the_same_function() -> None:
    assert find_function("GroundingFunction") == FUNCTIONS["grounding"]
    assert find_function("BATCH-WORKER") == FUNCTIONS["batch-worker"]


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["nothing", "events/api_health.json"], "no function 'nothing'"),
        (["chat", "events/api_health.json"], "Lambda Web Adapter"),
        (["api", "events/missing.json"], "cannot read events/missing.json"),
        (["api", "README.md"], "is not JSON"),
    ],
)
def test_given_a_bad_argument_when_invoked_then_it_exits_2_with_the_reason(
    arguments: list[str],
    message: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(EVENTS.parent)

    code = main(["invoke", *arguments])

    assert code == 2
    assert message in capsys.readouterr().err


def test_given_a_handler_that_raises_when_invoked_then_it_exits_1_with_the_traceback(
    aws: Aws, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(EVENTS.parent)
    monkeypatch.delenv("GROUNDWORK_BATCH_QUEUE_URL")

    code = main(["invoke", "batch-enqueue", "events/s3_object_created.json"])

    assert code == 1
    assert "GROUNDWORK_BATCH_QUEUE_URL is not set" in capsys.readouterr().err


def test_given_a_context_then_it_counts_down_and_names_the_function() -> None:
    context = LambdaContext(function_name="groundwork-api", timeout_s=2)

    assert 0 < context.get_remaining_time_in_millis() <= 2000
    assert context.invoked_function_arn.endswith(":function:groundwork-api")
    assert context.aws_request_id != LambdaContext(function_name="x").aws_request_id
