"""Handlers log JSON with the request's correlation id, emit EMF metrics, and trace in Lambda."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import TYPE_CHECKING, Any

import pytest

from groundwork.observability import tools
from groundwork.observability.entry import record_answer
from groundwork.observability.tools import get_tracer
from tests.conftest import REPO
from tests.serverless.conftest import INPUT_BUCKET, Aws, load_event, run_function

if TYPE_CHECKING:
    from pathlib import Path


def emf_lines(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines() if line.startswith('{"_aws"')]


def test_given_an_api_event_when_handled_then_emf_counts_the_request_and_its_latency(
    aws: Aws, capsys: pytest.CaptureFixture[str]
) -> None:
    run_function("grounding", load_event("grounding_check.json"))

    (*_, metrics) = emf_lines(capsys.readouterr().out)
    names = {m["Name"] for m in metrics["_aws"]["CloudWatchMetrics"][0]["Metrics"]}
    assert {"Requests", "Latency", "SupportScore"} <= names
    assert metrics["_aws"]["CloudWatchMetrics"][0]["Namespace"] == "Groundwork"
    assert metrics["Requests"] == [1.0]


def test_given_an_s3_event_when_handled_then_logs_are_json_with_its_correlation_id(
    aws: Aws, capsys: pytest.CaptureFixture[str]
) -> None:
    aws.s3.put_object(Bucket=INPUT_BUCKET, Key="batches/batch_input.jsonl", Body=b"")

    run_function("batch-enqueue", load_event("s3_object_created.json"))

    out = capsys.readouterr().out
    (record,) = [json.loads(line) for line in out.splitlines() if '"message"' in line]
    assert record["message"] == "enqueued"
    assert record["correlation_id"] == "C3D13FE58DE4C810"
    assert record["function_name"] == "groundwork-BatchEnqueueFunction"
    assert record["lines"] == 0


def test_given_no_lambda_environment_then_there_is_no_tracer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("LAMBDA_TASK_ROOT", raising=False)
    get_tracer.cache_clear()

    assert get_tracer() is None
    get_tracer.cache_clear()


def test_given_lambda_without_the_xray_sdk_then_there_is_no_tracer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("LAMBDA_TASK_ROOT", "/var/task")
    monkeypatch.setattr(tools.importlib.util, "find_spec", lambda name: None)
    get_tracer.cache_clear()

    assert get_tracer() is None
    get_tracer.cache_clear()


PATCHED_WHEN_IMPORTED = """
import importlib, json, sys
importlib.import_module("handler")
at_start = sorted(m for m in ("botocore.client", "requests", "httpx") if m in sys.modules)
import botocore.client, httpx, requests
print(json.dumps({
    "imported at start": at_start,
    "botocore": hasattr(botocore.client, "_xray_enabled"),
    "requests": type(requests.Session.__dict__["request"]).__name__,
    "httpx": httpx.Client.__name__,
}))
"""


def test_given_lambda_when_the_api_handler_starts_then_xray_patches_each_library_on_its_import(
    tmp_path: Path,
) -> None:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in {"AWS_SAM_LOCAL", "POWERTOOLS_TRACE_DISABLED"}
    } | {
        "PYTHONPATH": str(REPO / "functions" / "api"),
        "LAMBDA_TASK_ROOT": str(REPO / "functions" / "api"),
        "AWS_LAMBDA_FUNCTION_NAME": "groundwork-ApiFunction",
        "AWS_DEFAULT_REGION": "us-east-1",
        "GROUNDWORK_DATA_DIR": str(tmp_path),
        "GROUNDWORK_BOOTSTRAP_DOCS": "false",
    }

    done = subprocess.run(
        [sys.executable, "-c", PATCHED_WHEN_IMPORTED],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )

    assert json.loads(done.stdout) == {
        "imported at start": [],  # patch_all would have imported all three to patch them
        "botocore": True,
        "requests": "FunctionWrapper",
        "httpx": "_InstrumentedClient",
    }


def test_given_a_chat_answer_in_lambda_then_its_cache_hit_and_support_score_are_metrics(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("AWS_LAMBDA_FUNCTION_NAME", "groundwork-ChatFunction")
    metrics = tools.get_metrics()

    record_answer(cached=True, support_score=0.9)
    record_answer(cached=False, support_score=None)
    metrics.flush_metrics()

    (emitted,) = emf_lines(capsys.readouterr().out)
    assert emitted["CacheHit"] == [1.0, 0.0]
    assert emitted["SupportScore"] == [0.9]


def test_given_no_lambda_then_chat_answers_add_no_metric(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("AWS_LAMBDA_FUNCTION_NAME", raising=False)

    record_answer(cached=True, support_score=0.9)

    assert "CacheHit" not in tools.get_metrics().metric_set


def test_given_a_function_when_it_handles_an_event_then_its_metrics_carry_its_name(
    aws: Aws, capsys: pytest.CaptureFixture[str]
) -> None:
    run_function("grounding", load_event("grounding_check.json"))

    (*_, metrics) = emf_lines(capsys.readouterr().out)
    (declared,) = metrics["_aws"]["CloudWatchMetrics"]
    assert [set(names) for names in declared["Dimensions"]] == [{"service", "function_name"}]
    assert metrics["function_name"] == "groundwork-GroundingFunction"
    assert {"Requests", "Latency", "SupportScore"} <= {m["Name"] for m in declared["Metrics"]}


def test_given_the_app_under_the_web_adapter_when_a_request_ends_then_its_metrics_name_the_function(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from fastapi import FastAPI
    from fastapi.testclient import TestClient

    from groundwork.observability.asgi import RequestTelemetry

    monkeypatch.setenv("AWS_LAMBDA_FUNCTION_NAME", "groundwork-ChatFunction")
    app = FastAPI()
    app.get("/ping")(lambda: {"ok": True})
    app.add_middleware(RequestTelemetry)

    assert TestClient(app).get("/ping").status_code == 200

    (metrics,) = emf_lines(capsys.readouterr().out)
    dimensions = metrics["_aws"]["CloudWatchMetrics"][0]["Dimensions"]
    assert [set(names) for names in dimensions] == [{"service", "function_name"}]
    assert metrics["function_name"] == "groundwork-ChatFunction"
    assert metrics["Requests"] == [1.0]


def test_given_a_message_that_fails_when_the_worker_runs_then_it_leaves_a_log_line(
    aws: Aws, capsys: pytest.CaptureFixture[str]
) -> None:
    event = load_event("sqs_batch_line.json")
    event["Records"][0]["body"] = "not a line pointer"

    response = run_function("batch-worker", event)

    message_id = event["Records"][0]["messageId"]
    assert response["batchItemFailures"] == [{"itemIdentifier": message_id}]
    logs = [json.loads(line) for line in capsys.readouterr().out.splitlines() if '"level"' in line]
    (failed,) = [log for log in logs if log["message"] == "message failed"]
    assert failed["level"] == "ERROR"
    assert failed["message_id"] == message_id
    assert "ValidationError" in failed["exception"]
