"""Fuzzing every route: schemathesis with all its checks, and hostile text in valid shapes,
sent as JSON escapes and as raw bytes in every encoding a client may use.

No input may give a 5xx or a dropped connection, every response must match the OpenAPI
document (its statuses, its bodies, its content types), and an error always carries a code.
Example budgets are bounded so the whole file runs in well under a minute.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import pytest
import schemathesis
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis import GenerationMode
from schemathesis.checks import CHECKS, load_all_checks

from groundwork.api.app import create_app
from groundwork.settings import Settings
from tests.chat.fixtures import SlowGenerator, World, answer_with, bearer, seed
from tests.serving import served


def _world(data_dir: Path) -> World:
    return seed(
        Settings(
            data_dir=data_dir,
            bootstrap_docs=False,
            retrieval="keyword",
            require_api_key=True,
            chat_wait_seconds=1,
        )
    )


def _app(world: World) -> Any:
    app = create_app(world.settings)
    answer_with(app, world.settings, SlowGenerator())
    return app


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> World:
    return _world(tmp_path_factory.mktemp("fuzz") / "data")


@pytest.fixture(scope="module")
def client(world: World) -> Iterator[TestClient]:
    with TestClient(_app(world), headers=bearer(world.keys["alice"])) as test_client:
        yield test_client


# -- schemathesis, every check --------------------------------------------------------------

load_all_checks()
ALL_CHECKS = list(CHECKS.get_all())
_DOCUMENT = create_app(Settings(data_dir=Path("unused"), bootstrap_docs=False)).openapi()
#: Every documented operation with each mode that can make data for it: invalid data needs
#: a body or a query parameter to break (building the document touches no state).
CASES = sorted(
    (method.upper(), path, mode)
    for path, methods in _DOCUMENT["paths"].items()
    for method, operation in methods.items()
    for mode in GenerationMode
    if mode is GenerationMode.POSITIVE
    or "requestBody" in operation
    or any(parameter["in"] == "query" for parameter in operation.get("parameters", []))
)
#: Valid data may still be refused for what a schema cannot say: an empty question, an
#: unknown cursor or conversation, a collection the user may not see, a request_id in use.
CONFIG = schemathesis.Config.from_dict(
    {
        "checks": {
            "positive_data_acceptance": {
                "expected-statuses": ["2xx", "400", "401", "403", "404", "409"]
            }
        }
    }
)


@pytest.fixture(scope="module")
def api_schema(world: World) -> Any:
    return schemathesis.openapi.from_asgi("/openapi.json", _app(world), config=CONFIG)


# schemathesis' own pytest plugin (from_fixture) fails under pytest 9, so each operation's
# strategies are drawn here, valid and invalid data alike, with a bounded budget.
@pytest.mark.parametrize(("method", "path", "mode"), CASES, ids=lambda part: str(part))
def test_given_any_request_the_schema_allows_or_not_then_every_check_passes(
    api_schema: Any, world: World, method: str, path: str, mode: GenerationMode
) -> None:
    operation = api_schema[path][method]
    headers = bearer(world.keys["alice"])

    @settings(
        max_examples=8,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        derandomize=True,
        database=None,
    )
    @given(case=operation.as_strategy(generation_mode=mode))
    def check(case: schemathesis.Case) -> None:
        case.call_and_validate(headers=headers, checks=ALL_CHECKS)

    check()


# -- hostile text in valid shapes -----------------------------------------------------------

_HOSTILE_TEXT = st.one_of(
    st.text(alphabet=st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF), min_size=1),
    st.text(alphabet=st.characters(max_codepoint=0x1F), min_size=1),
    st.text(min_size=1, max_size=50),
    st.builds(
        lambda c, n: c * n, st.sampled_from(["a", "é", "\u202e", "word "]), st.integers(1, 300_000)
    ),
    st.builds(
        lambda left, right: left + "\ud800" + right, st.text(max_size=10), st.text(max_size=10)
    ),
)


def _routes(text: str) -> list[tuple[str, str, dict[str, Any] | None]]:
    message = [{"role": "user", "content": text}]
    # In a path, the text's UTF-8 bytes (a lone surrogate's too, as a hostile client sends).
    segment = quote(text[:200].encode("utf-8", "surrogatepass"), safe="")
    return [
        ("POST", "/v1/chat/completions", {"model": text, "messages": message}),
        ("POST", "/v1/chat/completions", {"model": "m", "messages": message, "tags": [text]}),
        ("POST", "/v1/chat", {"messages": message, "collection": "catechism"}),
        ("POST", "/v1/chat", {"messages": message, "request_id": text[:64] or "r"}),
        ("POST", "/v1/chat", {"messages": [{"role": "user", "content": "Who?"}], "origin": text}),
        ("POST", "/v1/search", {"query": text, "collection": "catechism"}),
        ("POST", "/v1/search", {"query": "sacraments", "collection": text[:128]}),
        ("POST", "/v1/grounding:check", {"answerCandidate": text, "facts": [{"factText": text}]}),
        (
            "POST",
            "/v1/projects/p/locations/l/groundingConfigs/c:check",
            {"answerCandidate": "A.", "facts": [{"factText": "A.", "attributes": {text: text}}]},
        ),
        ("POST", "/v1/scope/resolve", {"collection": "catechism", "tags": [text]}),
        ("POST", "/v1/scope/resolve", {"conversation_id": text[:64] or "c"}),
        ("POST", "/v1/conversations/c1/versions", {"question_id": 1}),
        ("GET", f"/v1/conversations/{segment}", None),
        ("GET", f"/v1/conversations/{segment}/feed", None),
        ("GET", f"/v1/models/{segment}", None),
    ]


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    derandomize=True,
)
@given(text=_HOSTILE_TEXT)
def test_given_hostile_text_in_a_valid_shape_on_every_route_then_never_5xx(
    client: TestClient, text: str
) -> None:
    for method, path, body in _routes(text):
        # ensure_ascii: a lone surrogate travels as its JSON escape, as a hostile client sends it.
        raw = json.dumps(body).encode() if body is not None else None
        response = client.request(
            method, path, content=raw, headers={"Content-Type": "application/json"}
        )
        assert response.status_code < 500, (path, response.text[:500])
        if response.status_code >= 400:
            assert response.json()["error"]["code"], path


#: How a body's JSON text becomes bytes: as UTF-8 (a lone surrogate as its three CESU-8
#: bytes, as a hostile client sends it), and in the other encodings ``json.loads`` detects.
ENCODINGS = ("utf-8", "utf-16", "utf-16-le", "utf-16-be", "utf-32", "utf-32-le", "utf-32-be")


@pytest.fixture(scope="module")
def served_url(world: World) -> Iterator[str]:
    with served(_app(world)) as url:
        yield url


@settings(
    max_examples=8,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    derandomize=True,
)
@given(text=_HOSTILE_TEXT)
def test_given_hostile_text_as_raw_bytes_in_any_encoding_then_never_5xx_nor_a_dropped_connection(
    served_url: str, world: World, text: str
) -> None:
    # Over real HTTP on one keep-alive connection: a failure while the response is written
    # would show as a dropped connection (httpx raises), not as a status.
    with httpx.Client(base_url=served_url, headers=bearer(world.keys["alice"])) as http:
        for method, path, body in _routes(text):
            if body is None:
                continue
            document = json.dumps(body, ensure_ascii=False)
            for encoding in ENCODINGS:
                raw = document.encode(encoding, "surrogatepass")
                response = http.request(
                    method, path, content=raw, headers={"Content-Type": "application/json"}
                )
                assert response.status_code < 500, (path, encoding, response.text[:500])
                if response.status_code >= 400:
                    assert response.json()["error"]["code"], (path, encoding)
                if encoding != "utf-8" and response.status_code != 413:
                    # Whatever the text, a body that is not UTF-8 is refused as such.
                    error = response.json()["error"]
                    assert (error["code"], error["param"]) == ("request.invalid_unicode", "body")
