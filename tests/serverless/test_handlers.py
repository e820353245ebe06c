"""Every function's handler imports and runs on its sample event from events/."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest

from groundwork.cli.invoke import FUNCTIONS
from groundwork.settings import get_settings
from groundwork.storage.factory import get_stores
from tests.serverless.conftest import (
    EVENTS,
    INPUT_BUCKET,
    OUTPUT_BUCKET,
    Aws,
    load_event,
    run_function,
)

SAMPLE_INPUT_KEY = "batches/batch_input.jsonl"  # the object of the sample S3 and SQS events
SAMPLE_DOCUMENT_KEY = "default/guides/getting started.md"  # of s3_document_created.json


def assert_api_ok(result: dict[str, Any]) -> None:
    assert result["statusCode"] == 200, result["body"]


def assert_health(result: dict[str, Any]) -> None:
    assert_api_ok(result)
    assert json.loads(result["body"])["status"] == "ok"


def assert_completion(result: dict[str, Any]) -> None:
    assert_api_ok(result)
    assert json.loads(result["body"])["object"] == "chat.completion"


def assert_grounded(result: dict[str, Any]) -> None:
    assert_api_ok(result)
    body = json.loads(result["body"])
    assert body["supportScore"] > 0.9
    assert [claim["groundingCheckRequired"] for claim in body["claims"]] == [False, True, True]


def assert_resolved(result: dict[str, Any]) -> None:
    assert_api_ok(result)
    assert json.loads(result["body"])["collections"] == ["default"]


def assert_enqueued(result: dict[str, Any]) -> None:
    (batch,) = result["batches"]
    assert (batch["lines"], batch["enqueued"], batch["rejected"]) == (3, 2, 1)


def assert_ingested(result: dict[str, Any]) -> None:
    assert result == {"documents": [{"key": SAMPLE_DOCUMENT_KEY, "outcome": "added"}]}


def assert_no_failures(result: dict[str, Any]) -> None:
    assert result == {"batchItemFailures": []}


def sample_user_key() -> str:
    accounts = get_stores(get_settings()).accounts
    accounts.create_user("sample-user", "Sample User")
    accounts.create_collection("default")
    accounts.grant("sample-user", "default")
    return accounts.issue_api_key("sample-user")


CASES = {
    ("api", "api_health.json"): assert_health,
    ("api", "api_chat_completion.json"): assert_completion,
    ("grounding", "grounding_check.json"): assert_grounded,
    ("scope", "scope_resolve.json"): assert_resolved,
    ("batch-enqueue", "s3_object_created.json"): assert_enqueued,
    ("batch-worker", "sqs_batch_line.json"): assert_no_failures,
    ("ingest", "s3_document_created.json"): assert_ingested,
}


@pytest.mark.parametrize(("function", "event"), list(CASES))
def test_given_a_sample_event_when_its_function_runs_then_it_succeeds(
    aws: Aws, function: str, event: str
) -> None:
    aws.s3.put_object(
        Bucket=INPUT_BUCKET, Key=SAMPLE_INPUT_KEY, Body=(EVENTS / "batch_input.jsonl").read_bytes()
    )
    sample = load_event(event)
    if function == "batch-worker":  # its message belongs to the batch the S3 event starts
        run_function("batch-enqueue", load_event("s3_object_created.json"))
    if function == "scope":  # scope needs a user who may see the collection
        authorization = f"Bearer {sample_user_key()}"
        sample["headers"]["Authorization"] = authorization
        sample["multiValueHeaders"]["Authorization"] = [authorization]

    if function == "ingest":  # the document the event names, and its ETag
        bucket = sample["Records"][0]["s3"]["bucket"]["name"]
        aws.s3.create_bucket(Bucket=bucket)
        put = aws.s3.put_object(
            Bucket=bucket, Key=SAMPLE_DOCUMENT_KEY, Body=b"# Start\n\nRun it.\n"
        )
        sample["Records"][0]["s3"]["object"]["eTag"] = put["ETag"].strip('"')
    result = run_function(function, sample)

    CASES[(function, event)](result)


def test_given_the_sample_events_then_every_function_and_event_has_a_case() -> None:
    assert {function for function, _ in CASES} == set(FUNCTIONS)
    assert {event for _, event in CASES} == {path.name for path in EVENTS.glob("*.json")}


def test_given_the_sample_worker_event_when_it_runs_then_its_line_result_is_written(
    aws: Aws,
) -> None:
    aws.s3.put_object(
        Bucket=INPUT_BUCKET, Key=SAMPLE_INPUT_KEY, Body=(EVENTS / "batch_input.jsonl").read_bytes()
    )
    run_function("batch-enqueue", load_event("s3_object_created.json"))

    run_function("batch-worker", load_event("sqs_batch_line.json"))

    listed = aws.s3.list_objects_v2(Bucket=OUTPUT_BUCKET, Prefix="parts/")
    parts = [item["Key"] for item in listed["Contents"]]
    first = json.loads(aws.s3.get_object(Bucket=OUTPUT_BUCKET, Key=sorted(parts)[0])["Body"].read())
    assert first["id"] == "titanic-director"
    assert first["response"]["supportScore"] > 0.9


def test_given_keys_are_required_when_a_check_comes_without_one_then_it_is_refused(
    aws: Aws, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GROUNDWORK_REQUIRE_API_KEY", "true")
    get_settings.cache_clear()
    event = load_event("grounding_check.json")

    refused = run_function("grounding", event)
    event["headers"]["x-api-key"] = sample_user_key()
    accepted = run_function("grounding", event)

    assert refused["statusCode"] == 401
    assert json.loads(refused["body"])["error"]["code"] == "auth.invalid_key"
    assert accepted["statusCode"] == 200


def test_given_the_scope_function_when_the_key_or_body_is_wrong_then_it_answers_like_the_app(
    aws: Aws,
) -> None:
    event = load_event("scope_resolve.json")
    without_key = run_function("scope", event)
    key = sample_user_key()
    event["headers"]["Authorization"] = f"Bearer {key}"
    event["body"] = json.dumps({"collection": "default", "card_ids": "not a list"})
    invalid = run_function("scope", event)
    event["body"] = json.dumps({"collection": "secret"})
    missing = run_function("scope", event)

    assert without_key["statusCode"] == 401
    assert json.loads(without_key["body"])["error"]["code"] == "auth.invalid_key"
    assert invalid["statusCode"] == 400
    assert json.loads(invalid["body"])["error"]["param"] == "card_ids"
    assert missing["statusCode"] == 404
    assert json.loads(missing["body"])["error"]["code"] == "collections.not_found"


@pytest.mark.parametrize(
    ("function", "event_file", "body", "param"),
    [
        # A lone surrogate as raw (CESU-8) bytes, base64 as API Gateway passes what is not UTF-8.
        ("scope", "scope_resolve.json", b'{"tags": ["a\xed\xa0\x80"]}', "tags.0"),
        (
            "grounding",
            "grounding_check.json",
            b'{"answerCandidate": "\xed\xb0\x80"}',
            "answerCandidate",
        ),
        ("scope", "scope_resolve.json", '{"tags": ["a"]}'.encode("utf-16"), "body"),
        ("grounding", "grounding_check.json", '{"facts": []}'.encode("utf-32-le"), "body"),
    ],
)
def test_given_a_body_that_is_not_utf8_when_a_plain_handler_reads_it_then_400_invalid_unicode(
    aws: Aws, function: str, event_file: str, body: bytes, param: str
) -> None:
    event = load_event(event_file)
    event["headers"]["Authorization"] = f"Bearer {sample_user_key()}"
    event["body"] = base64.b64encode(body).decode()
    event["isBase64Encoded"] = True

    result = run_function(function, event)

    assert result["statusCode"] == 400, result["body"]
    error = json.loads(result["body"])["error"]
    assert (error["code"], error["param"]) == ("request.invalid_unicode", param)


def test_given_a_lone_surrogate_escape_in_a_text_body_then_the_scope_function_refuses_it(
    aws: Aws,
) -> None:
    event = load_event("scope_resolve.json")
    event["headers"]["Authorization"] = f"Bearer {sample_user_key()}"
    event["body"] = '{"collection": "default", "tags": ["\\udfff"]}'

    result = run_function("scope", event)

    assert result["statusCode"] == 400, result["body"]
    assert json.loads(result["body"])["error"]["param"] == "tags.0"
