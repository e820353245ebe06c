"""The API-Gateway-like router's own rules, without emulators: routes, events, responses."""

from __future__ import annotations

import json

from starlette.requests import Request

from groundwork.local_lambda.functions import Route
from groundwork.local_lambda.router import buffered_response, match, proxy_event, streamed_response

ROUTES = [
    Route("ChatFunction", "/v1/chat/completions", "POST", True, "prod"),
    Route("ApiFunction", "/{proxy+}", "ANY", False, "prod"),
    Route("ApiFunction", "/", "GET", False, "prod"),
    Route(
        "GroundingFunction",
        "/v1/projects/{project}/locations/{location}/groundingConfigs/{config}",
        "POST",
        False,
        "prod",
    ),
]


def test_given_a_literal_route_and_a_greedy_one_then_the_literal_one_wins() -> None:
    route, params = match(ROUTES, "POST", "/v1/chat/completions") or (None, None)
    assert route is not None
    assert route.function == "ChatFunction"
    assert params == {}
    route, params = match(ROUTES, "GET", "/v1/chat/completions") or (None, None)
    assert route is not None
    assert route.function == "ApiFunction"
    assert params == {"proxy": "v1/chat/completions"}


def test_given_path_parameters_then_they_take_whole_segments() -> None:
    path = "/v1/projects/p/locations/global/groundingConfigs/default:check"
    route, params = match(ROUTES, "POST", path) or (None, None)
    assert route is not None
    assert route.function == "GroundingFunction"
    assert params == {"project": "p", "location": "global", "config": "default:check"}
    assert match(ROUTES, "POST", "/") is None  # only GET on the root


def test_given_a_request_then_the_event_is_a_rest_proxy_event_with_the_stage() -> None:
    request = Request(
        {
            "type": "http",
            "method": "POST",
            "path": "/prod/v1/chat/completions",
            "query_string": b"a=1&a=2",
            "headers": [(b"content-type", b"application/json")],
            "client": ("127.0.0.1", 5000),
        }
    )
    event = proxy_event(request, b'{"x": 1}', ROUTES[0], "/v1/chat/completions", {})
    assert event["resource"] == "/v1/chat/completions"
    assert event["requestContext"]["path"] == "/prod/v1/chat/completions"
    assert event["requestContext"]["stage"] == "prod"
    assert event["queryStringParameters"] == {"a": "2"}
    assert event["multiValueQueryStringParameters"] == {"a": ["1", "2"]}
    assert json.loads(event["body"]) == {"x": 1}
    assert event["isBase64Encoded"] is False


def test_given_the_adapters_stream_format_then_prelude_gives_status_and_headers() -> None:
    prelude = {"statusCode": 201, "headers": {"content-type": "text/event-stream"}}
    payload = json.dumps(prelude).encode() + b"\x00" * 8 + b"data: 1\n\ndata: 2\n\n"
    response = streamed_response(payload)
    assert response.status_code == 201
    assert response.headers["content-type"] == "text/event-stream"
    assert response.body == b"data: 1\n\ndata: 2\n\n"


def test_given_a_function_error_then_502_as_api_gateway() -> None:
    error = json.dumps({"errorMessage": "boom", "errorType": "RuntimeError"}).encode()
    assert buffered_response(error).status_code == 502
    assert streamed_response(error).status_code == 502
    ok = buffered_response(json.dumps({"statusCode": 204, "body": ""}).encode())
    assert ok.status_code == 204
