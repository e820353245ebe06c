"""The API Lambda handler serves the app for the sample API Gateway events in events/."""

import importlib.util
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from groundwork.settings import get_settings
from tests.conftest import REPO


class LambdaContext:
    function_name = "groundwork-api"
    function_version = "$LATEST"
    invoked_function_arn = "arn:aws:lambda:us-east-1:123456789012:function:groundwork-api"
    memory_limit_in_mb = 1024
    aws_request_id = "3f1c4d2e-0000-4000-8000-000000000000"

    @staticmethod
    def get_remaining_time_in_millis() -> int:
        return 30_000


@pytest.fixture
def handler_module(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, readme_checkout: Path
) -> Iterator[ModuleType]:
    monkeypatch.setenv("GROUNDWORK_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("GROUNDWORK_DOCS_DIR", str(readme_checkout))
    get_settings.cache_clear()
    spec = importlib.util.spec_from_file_location("api_handler", REPO / "functions/api/handler.py")
    assert spec
    assert spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    yield module
    sys.modules.pop("api_handler", None)
    get_settings.cache_clear()


def invoke(module: ModuleType, event_name: str) -> dict[str, Any]:
    event = json.loads((REPO / "events" / event_name).read_text())
    response: dict[str, Any] = module.handler(event, LambdaContext())
    return response


def test_given_the_health_event_when_the_handler_runs_then_it_answers_ok(
    handler_module: ModuleType,
) -> None:
    response = invoke(handler_module, "api_health.json")

    assert response["statusCode"] == 200
    assert json.loads(response["body"])["status"] == "ok"


def test_given_the_chat_completion_event_when_the_handler_runs_then_it_answers_with_citations(
    handler_module: ModuleType,
) -> None:
    response = invoke(handler_module, "api_chat_completion.json")

    assert response["statusCode"] == 200, response["body"]
    body = json.loads(response["body"])
    assert body["object"] == "chat.completion"
    assert body["citations"]
    assert body["citations"][0]["source_url"].startswith("README.md")
