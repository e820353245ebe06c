"""Bad requests get 4xx in OpenAI's error shape with a code; FastAPI's shape never leaks."""

from typing import Any

import pytest
from fastapi.testclient import TestClient

from groundwork.api.app import create_app
from groundwork.settings import Settings


def assert_error(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"error"}
    assert set(body["error"]) == {"message", "type", "param", "code"}
    assert body["error"]["code"] == code
    assert body["error"]["message"]
    return dict(body["error"])


@pytest.mark.parametrize(
    ("payload", "param"),
    [
        ({"model": "groundwork-1"}, "messages"),
        ({"model": "groundwork-1", "messages": []}, "messages"),
        ({"model": "groundwork-1", "messages": "hello"}, "messages"),
        ({"model": "groundwork-1", "messages": [{"role": "user", "content": 42}]}, None),
        ({"model": "groundwork-1", "messages": [{"role": "wizard", "content": "hi"}]}, None),
        ({"messages": [{"role": "user", "content": "hi"}]}, "model"),
        ({"model": 3, "messages": [{"role": "user", "content": "hi"}]}, "model"),
    ],
)
def test_given_an_invalid_body_when_posting_a_completion_then_400_request_invalid(
    client: TestClient, payload: dict[str, Any], param: str | None
) -> None:
    error = assert_error(client.post("/v1/chat/completions", json=payload), 400, "request.invalid")
    assert error["type"] == "invalid_request_error"
    if param:
        assert error["param"].startswith(param)


def test_given_a_body_that_is_not_json_when_posting_then_400_invalid_json(
    client: TestClient,
) -> None:
    response = client.post(
        "/v1/chat/completions", content=b"{not json", headers={"Content-Type": "application/json"}
    )
    error = assert_error(response, 400, "request.invalid_json")
    assert error["param"] == "body"  # not pydantic's character offset


def test_given_the_last_message_is_not_a_question_when_posting_then_400(
    client: TestClient,
) -> None:
    payload = {"model": "groundwork-1", "messages": [{"role": "assistant", "content": "Hello!"}]}
    error = assert_error(
        client.post("/v1/chat/completions", json=payload), 400, "messages.no_question"
    )
    assert error["param"] == "messages"


def test_given_an_unknown_route_when_requested_then_404_route_not_found(
    client: TestClient,
) -> None:
    assert_error(client.get("/v1/nothing-here"), 404, "route.not_found")


def test_given_a_wrong_method_when_requested_then_405_method_not_allowed(
    client: TestClient,
) -> None:
    assert_error(client.get("/v1/chat/completions"), 405, "method.not_allowed")


def test_given_a_bug_when_a_route_fails_then_500_in_the_same_shape(settings: Settings) -> None:
    app = create_app(settings)

    @app.get("/boom")
    def boom() -> None:
        raise RuntimeError("secret detail")

    with TestClient(app, raise_server_exceptions=False) as client:
        response = client.get("/boom")
    error = assert_error(response, 500, "internal.error")
    assert "secret" not in error["message"]
    assert error["type"] == "server_error"


def test_given_the_openapi_document_then_it_lists_the_errors_sent_and_no_422(
    client: TestClient,
) -> None:
    document = client.get("/openapi.json").json()
    operations = {
        f"{method.upper()} {path}": operation["responses"]
        for path, methods in document["paths"].items()
        for method, operation in methods.items()
    }
    error_ref = {"$ref": "#/components/schemas/ErrorResponse"}

    assert all("422" not in responses for responses in operations.values())
    assert "HTTPValidationError" not in document["components"]["schemas"]
    assert all({"408", "413"} <= set(responses) for responses in operations.values())
    assert set(operations["POST /v1/chat"]) >= {"400", "401", "403", "404", "409", "429"}
    assert set(operations["POST /v1/chat/completions"]) >= {"400", "401", "403", "404"}
    assert all(
        response["content"]["application/json"]["schema"] == error_ref
        for responses in operations.values()
        for status, response in responses.items()
        if status != "200"
    )
