"""``POST .../groundingConfigs/{config}:check`` and ``/v1/grounding:check`` over HTTP."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

VERTEX_PATH = (
    "/v1/projects/my-project/locations/global/groundingConfigs/default_grounding_config:check"
)
ALIAS_PATH = "/v1/grounding:check"
FACTS = [
    {
        "factText": "Titanic is a 1997 movie. It was directed by James Cameron.",
        "attributes": {"author": "Simple Wikipedia"},
    }
]


def assert_error(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert error["code"] == code
    assert error["message"]
    return dict(error)


@pytest.mark.parametrize("path", [VERTEX_PATH, ALIAS_PATH])
def test_given_a_vertex_request_when_posted_then_the_response_has_the_vertex_shape(
    grounding_client: TestClient, path: str
) -> None:
    body = {
        "answerCandidate": "Here is what I found. Titanic was directed by James Cameron.",
        "facts": FACTS,
        "groundingSpec": {"citationThreshold": 0.6, "enableClaimLevelScore": True},
    }
    response = grounding_client.post(path, json=body)
    assert response.status_code == 200, response.text
    payload = response.json()
    assert set(payload) == {"supportScore", "citedChunks", "claims"}
    assert payload["supportScore"] >= 0.9
    chunks = payload["citedChunks"]
    assert {chunk["source"] for chunk in chunks} == {"0"}
    assert "It was directed by James Cameron." in [chunk["chunkText"] for chunk in chunks]
    meta, fact = payload["claims"]
    assert meta == {
        "startPos": 0,
        "endPos": 21,
        "claimText": "Here is what I found.",
        "citationIndices": [],
        "groundingCheckRequired": False,
    }
    assert fact["startPos"] == 22
    assert fact["endPos"] == 60
    assert fact["citationIndices"] == list(range(len(chunks)))
    assert fact["groundingCheckRequired"] is True
    assert fact["score"] >= 0.9


def test_given_claim_scores_off_when_posted_then_claims_carry_no_score(
    grounding_client: TestClient,
) -> None:
    body = {"answerCandidate": "Titanic was directed by James Cameron.", "facts": FACTS}
    claims = grounding_client.post(ALIAS_PATH, json=body).json()["claims"]
    assert "score" not in claims[0]


def test_given_numbers_and_booleans_as_strings_when_posted_then_they_are_accepted(
    grounding_client: TestClient,
) -> None:
    body = {
        "answerCandidate": "Titanic was directed by James Cameron.",
        "facts": FACTS,
        "groundingSpec": {"citationThreshold": "0.99", "enableClaimLevelScore": "true"},
    }
    response = grounding_client.post(VERTEX_PATH, json=body)
    assert response.status_code == 200, response.text
    claim = response.json()["claims"][0]
    assert "score" in claim
    assert claim["citationIndices"] == []  # 0.99 is above this claim's score


@pytest.mark.parametrize(
    ("body", "code", "param"),
    [
        (
            {"answerCandidate": "x", "facts": [{"factText": "f"}] * 201},
            "facts.too_many",
            "facts",
        ),
        (
            {"answerCandidate": "x", "facts": [{"factText": "a" * 10_001}]},
            "facts.too_long",
            "facts.0.factText",
        ),
        (
            {"answerCandidate": "word " * 4097, "facts": []},
            "answer_candidate.too_long",
            "answerCandidate",
        ),
        (
            {"answerCandidate": "x", "groundingSpec": {"citationThreshold": 1.5}},
            "grounding_spec.invalid_threshold",
            "groundingSpec.citationThreshold",
        ),
        (
            {"answerCandidate": "x", "groundingSpec": {"citationThreshold": "-0.1"}},
            "grounding_spec.invalid_threshold",
            "groundingSpec.citationThreshold",
        ),
        ({"facts": []}, "request.invalid", "answerCandidate"),
        ({"answerCandidate": 7}, "request.invalid", "answerCandidate"),
        ({"answerCandidate": "x", "facts": [{"text": "f"}]}, "request.invalid", "facts.0.factText"),
    ],
)
def test_given_a_request_outside_the_limits_when_posted_then_400_with_a_code(
    grounding_client: TestClient, body: dict[str, Any], code: str, param: str
) -> None:
    error = assert_error(grounding_client.post(ALIAS_PATH, json=body), 400, code)
    assert error["param"] == param


def test_given_the_limits_exactly_when_posted_then_the_request_is_accepted(
    grounding_client: TestClient,
) -> None:
    body = {
        "answerCandidate": "They wore off-the-rack clothes in 2024. " * 585,  # 4095 tokens
        "facts": [{"factText": "They wore clothes. " * 526}] * 200,  # 9,994 characters each
        "groundingSpec": {"citationThreshold": 1},
    }
    response = grounding_client.post(ALIAS_PATH, json=body)
    assert response.status_code == 200, response.text


def test_given_a_lone_surrogate_when_posted_then_400_not_500(grounding_client: TestClient) -> None:
    raw = b'{"answerCandidate": "bad \\ud800 text", "facts": []}'
    response = grounding_client.post(
        ALIAS_PATH, content=raw, headers={"Content-Type": "application/json"}
    )
    assert_error(response, 400, "request.invalid_unicode")


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=10), children, max_size=3)
    ),
    max_leaves=10,
)
# Words shared by candidates and facts, so that the fuzz reaches scoring and citing too.
_WORDS = st.lists(
    st.sampled_from(
        ["Titanic", "1997", "was", "not", "James", "Cameron", "the", ".", "&#39;", "\n"]
    ),
    max_size=30,
).map(" ".join)
_FACT = st.fixed_dictionaries(
    {},
    optional={
        "factText": _WORDS | st.text(max_size=200) | _JSON,
        "attributes": st.dictionaries(st.text(max_size=10), st.text(max_size=20)) | _JSON,
    },
)
_BODY = st.fixed_dictionaries(
    {},
    optional={
        "answerCandidate": _WORDS | st.text(max_size=300) | _JSON,
        "facts": st.lists(_FACT, max_size=4) | _JSON,
        "groundingSpec": st.fixed_dictionaries(
            {},
            optional={
                "citationThreshold": st.floats() | st.text(max_size=5) | _JSON,
                "enableClaimLevelScore": st.booleans() | st.text(max_size=5) | _JSON,
            },
        )
        | _JSON,
    },
)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(body=_BODY | _JSON)
def test_given_any_json_body_when_posted_then_200_or_4xx_with_a_code_never_500(
    grounding_client: TestClient, body: Any
) -> None:
    response = grounding_client.post(
        ALIAS_PATH,
        content=json.dumps(body, allow_nan=True).encode(),
        headers={"Content-Type": "application/json"},
    )
    assert response.status_code < 500, response.text
    if response.status_code >= 400:
        assert response.json()["error"]["code"]
    else:
        payload = response.json()
        assert 0 <= payload["supportScore"] <= 1
        encoded = body["answerCandidate"].encode("utf-8")
        for claim in payload["claims"]:
            assert encoded[claim["startPos"] : claim["endPos"]].decode() == claim["claimText"]


@settings(
    max_examples=50, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(raw=st.binary(max_size=200))
def test_given_arbitrary_bytes_when_posted_then_4xx_never_500(
    grounding_client: TestClient, raw: bytes
) -> None:
    response = grounding_client.post(
        VERTEX_PATH, content=raw, headers={"Content-Type": "application/json"}
    )
    assert 400 <= response.status_code < 500
    assert response.json()["error"]["code"]
