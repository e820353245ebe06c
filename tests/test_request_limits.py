"""Hostile input gets a 4xx with a code, before it costs anything: invalid Unicode, huge
questions and bodies, too many tags, loose booleans, and bodies that never finish arriving."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from groundwork.api.app import create_app
from groundwork.chat.language import detect_language
from groundwork.settings import Settings
from tests.chat.fixtures import SlowGenerator, World, answer_with, bearer, seed
from tests.serving import served
from tests.test_api_errors import assert_error

COMPLETIONS, CHAT, SEARCH = "/v1/chat/completions", "/v1/chat", "/v1/search"
CHECK = "/v1/grounding:check"
QUESTION = "How many sacraments are there?"


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> World:
    data_dir = tmp_path_factory.mktemp("limits") / "data"
    return seed(Settings(data_dir=data_dir, bootstrap_docs=False, retrieval="keyword"))


@pytest.fixture(scope="module")
def client(world: World) -> Iterator[TestClient]:
    app = create_app(world.settings)
    answer_with(app, world.settings, SlowGenerator())
    with TestClient(app, headers=bearer(world.keys["alice"])) as test_client:
        yield test_client


def completion(content: Any, **extra: Any) -> dict[str, Any]:
    message = {"role": "user", "content": content}
    return {"model": "groundwork-1", "messages": [message], "collection": "catechism"} | extra


def chat(content: str, **extra: Any) -> dict[str, Any]:
    return {"messages": [{"role": "user", "content": content}], "collection": "catechism"} | extra


def post_raw(client: TestClient, path: str, raw: bytes) -> Any:
    return client.post(path, content=raw, headers={"Content-Type": "application/json"})


# -- invalid Unicode ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "body", "param"),
    [
        (COMPLETIONS, completion("bad \\ud800 text"), "messages.0.content"),
        (
            COMPLETIONS,
            completion([{"type": "text", "text": "\\udfff"}]),
            "messages.0.content.0.text",
        ),
        (COMPLETIONS, completion(QUESTION, tags=["\\ud800"]), "tags.0"),
        (CHAT, chat("bad \\ud800 text"), "messages.0.content"),
        (CHAT, chat(QUESTION, request_id="r\\udc00"), "request_id"),
        (SEARCH, {"query": "sacraments \\ud83d"}, "query"),
        (CHECK, {"answerCandidate": "a \\ud800", "facts": []}, "answerCandidate"),
    ],
)
def test_given_a_lone_surrogate_in_any_text_when_posted_then_400_invalid_unicode(
    client: TestClient, path: str, body: dict[str, Any], param: str
) -> None:
    # json.dumps would escape the backslash; the surrogate escape must reach the server as is.
    raw = json.dumps(body).replace("\\\\u", "\\u").encode()

    error = assert_error(post_raw(client, path, raw), 400, "request.invalid_unicode")

    assert error["param"] == param


@pytest.mark.parametrize(
    ("path", "raw", "param"),
    [
        # CESU-8: a surrogate's three bytes, which strict UTF-8 refuses.
        (CHAT, json.dumps(chat("bad \ud800 text"), ensure_ascii=False), "messages.0.content"),
        (
            SEARCH,
            json.dumps({"query": "x", "scope": {"tags": ["\udc80"]}}, ensure_ascii=False),
            "scope.tags.0",
        ),
        (COMPLETIONS, json.dumps(completion(QUESTION), ensure_ascii=False) + "\udfff", "body"),
    ],
)
def test_given_a_lone_surrogate_as_raw_bytes_when_posted_then_400_naming_its_field(
    client: TestClient, path: str, raw: str, param: str
) -> None:
    response = post_raw(client, path, raw.encode("utf-8", "surrogatepass"))

    assert assert_error(response, 400, "request.invalid_unicode")["param"] == param


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be", "utf-32", "utf-32-be"])
def test_given_a_valid_body_in_utf16_or_utf32_when_posted_then_400_invalid_unicode(
    client: TestClient, encoding: str
) -> None:
    raw = json.dumps(completion(QUESTION), ensure_ascii=False).encode(encoding)

    error = assert_error(post_raw(client, COMPLETIONS, raw), 400, "request.invalid_unicode")

    assert error["param"] == "body"
    assert encoding.upper() in error["message"] or encoding == "utf-16"


def test_given_latin1_bytes_in_a_string_when_posted_then_400_and_utf8_with_a_bom_is_read(
    client: TestClient,
) -> None:
    latin1 = json.dumps(chat("Qu'est-ce que la pri\u00e8re ?"), ensure_ascii=False)
    bom = b"\xef\xbb\xbf" + json.dumps(completion(QUESTION)).encode()

    refused = post_raw(client, CHAT, latin1.encode("latin-1"))

    assert assert_error(refused, 400, "request.invalid_unicode")["param"] == "messages.0.content"
    assert post_raw(client, COMPLETIONS, bom).status_code == 200


def test_given_an_escaped_surrogate_pair_or_a_literal_backslash_u_then_it_is_text(
    client: TestClient,
) -> None:
    paired = json.dumps(completion("How many sacraments are there? \U0001f600")).encode()
    literal = json.dumps(completion("How many sacraments are there? \\ud800")).encode()

    assert post_raw(client, COMPLETIONS, paired).status_code == 200
    assert post_raw(client, COMPLETIONS, literal).status_code == 200


# -- question length ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "body"),
    [
        (COMPLETIONS, completion("sacraments " * 66_000)),
        (CHAT, chat("sacraments " * 66_000)),
    ],
)
def test_given_a_question_of_66000_words_when_asked_then_400_question_too_long(
    client: TestClient, path: str, body: dict[str, Any]
) -> None:
    # 726,000 bytes: under the body limit, so the question's own cap answers.
    error = assert_error(client.post(path, json=body), 400, "question.too_long")

    assert error["param"] == "messages"


def test_given_a_question_at_the_cap_when_asked_then_it_is_answered(client: TestClient) -> None:
    question = (QUESTION + " ") * (4000 // (len(QUESTION) + 1))

    assert client.post(COMPLETIONS, json=completion(question)).status_code == 200
    assert client.post(CHAT, json=chat(question)).status_code == 200


def test_given_66000_repetitions_of_a_word_when_detecting_its_language_then_no_overflow() -> None:
    # py3langid counts features in uint16: 66,000 of one overflowed it.
    assert detect_language("Wie viele Sakramente gibt es? " * 66_000) == "de"


# -- body size ------------------------------------------------------------------------------


def test_given_a_10_mb_completions_body_when_posted_then_413_before_it_is_read(
    client: TestClient,
) -> None:
    raw = json.dumps(completion("x" * 10_000_000)).encode()
    started = time.monotonic()

    assert_error(post_raw(client, COMPLETIONS, raw), 413, "request.too_large")

    assert time.monotonic() - started < 5


def test_given_a_chunked_body_without_a_length_when_it_passes_the_limit_then_413(
    client: TestClient,
) -> None:
    def chunks() -> Iterator[bytes]:
        yield b'{"model": "groundwork-1", "messages": [{"role": "user", "content": "'
        for _ in range(2000):
            yield b"x" * 1024
        yield b'"}]}'

    response = client.post(
        COMPLETIONS, content=chunks(), headers={"Content-Type": "application/json"}
    )

    assert_error(response, 413, "request.too_large")


def test_given_a_body_just_under_the_limit_then_it_is_read(world: World) -> None:
    settings = world.settings.model_copy(update={"request_max_bytes": 4096})
    with TestClient(create_app(settings)) as small:
        padding = "p" * (4096 - len(json.dumps({"query": QUESTION, "pad": ""})))
        under = json.dumps({"query": QUESTION, "pad": padding}).encode()
        over = json.dumps({"query": QUESTION, "pad": padding + "p"}).encode()

        # Read and parsed (the unknown field is refused), not refused for its size.
        assert_error(post_raw(small, SEARCH, under), 400, "request.invalid")
        assert_error(post_raw(small, SEARCH, over), 413, "request.too_large")


def test_given_a_grounding_check_of_2_mb_then_its_own_limit_applies(client: TestClient) -> None:
    body = {"answerCandidate": "They wore clothes.", "facts": [{"factText": "c" * 9_999}] * 200}

    assert client.post(CHECK, json=body).status_code == 200
    assert_error(
        client.post(COMPLETIONS, json=completion("c" * 2_000_000)), 413, "request.too_large"
    )


# -- tags and card ids ----------------------------------------------------------------------


@pytest.mark.parametrize("field", ["tags", "card_ids"])
@pytest.mark.parametrize("path", [COMPLETIONS, CHAT])
def test_given_51_tags_or_card_ids_when_asked_then_400_as_on_every_route(
    client: TestClient, path: str, field: str
) -> None:
    body = (completion if path == COMPLETIONS else chat)(QUESTION, **{field: ["t"] * 51})

    error = assert_error(client.post(path, json=body), 400, "request.invalid")

    assert error["param"] == field


def test_given_100k_tags_on_completions_then_refused(client: TestClient) -> None:
    body = completion(QUESTION, tags=[f"t{i}" for i in range(100_000)])

    assert client.post(COMPLETIONS, json=body).status_code in (400, 413)


# -- strict booleans ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "body", "param"),
    [
        (COMPLETIONS, completion(QUESTION, stream="yes"), "stream"),
        (COMPLETIONS, completion(QUESTION, stream=1), "stream"),
        (COMPLETIONS, completion(QUESTION, stream_options={"include_usage": "true"}), None),
        (CHAT, chat(QUESTION, stream="yes"), "stream"),
        (CHAT, chat(QUESTION, bypass_cache=1), "bypass_cache"),
        (CHAT, chat(QUESTION, tools="false"), "tools"),
    ],
)
def test_given_a_boolean_as_a_string_or_number_on_chat_then_400(
    client: TestClient, path: str, body: dict[str, Any], param: str | None
) -> None:
    error = assert_error(client.post(path, json=body), 400, "request.invalid")

    if param is not None:
        assert error["param"] == param


@pytest.mark.parametrize("value", [0, 1, "yes", "0"])
def test_given_enable_claim_level_score_as_a_number_or_another_word_then_400(
    client: TestClient, value: Any
) -> None:
    body = {"answerCandidate": "A.", "groundingSpec": {"enableClaimLevelScore": value}}

    error = assert_error(client.post(CHECK, json=body), 400, "request.invalid")

    assert error["param"] == "groundingSpec.enableClaimLevelScore"


@pytest.mark.parametrize(("value", "scored"), [("true", True), ("FALSE", False), (True, True)])
def test_given_enable_claim_level_score_as_a_boolean_or_its_word_then_accepted(
    client: TestClient, value: Any, scored: bool
) -> None:
    body = {
        "answerCandidate": "Titanic was directed by James Cameron.",
        "facts": [{"factText": "Titanic is a film directed by James Cameron."}],
        "groundingSpec": {"enableClaimLevelScore": value, "citationThreshold": "0.5"},
    }

    response = client.post(CHECK, json=body)

    assert response.status_code == 200, response.text
    assert ("score" in response.json()["claims"][0]) is scored


# -- a body that never finishes -------------------------------------------------------------


@pytest.fixture
def slow_server(tmp_path: Path) -> Iterator[int]:
    settings = Settings(
        data_dir=tmp_path / "data", bootstrap_docs=False, request_body_timeout_s=0.5
    )
    with served(create_app(settings)) as url:
        yield int(url.rsplit(":", 1)[1])


def test_given_a_body_that_stops_midway_when_waiting_then_408_and_the_connection_closes(
    slow_server: int,
) -> None:
    with socket.create_connection(("127.0.0.1", slow_server), timeout=10) as connection:
        connection.sendall(
            b"POST /v1/search HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Content-Length: 100\r\n\r\n" + b'{"query": "sacr'
        )
        started = time.monotonic()
        received = b""
        while chunk := connection.recv(65536):  # until the server closes the connection
            received += chunk

    assert time.monotonic() - started < 5
    head, _, body = received.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 408")
    assert json.loads(body)["error"]["code"] == "request.timeout"
