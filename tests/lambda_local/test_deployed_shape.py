"""End to end through the deployed shape: router -> API Gateway event -> emulator -> function."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import quote_plus

import httpx
import openai
import pytest

from tests.chat.fixtures import ask, bearer, sse_events
from tests.conftest import REPO
from tests.lambda_local.conftest import Stack, dump_logs, read_json

EVENTS = REPO / "events"


def test_given_the_web_adapter_when_the_openai_sdk_streams_then_citations_on_the_last_chunk(
    stack: Stack,
) -> None:
    client = openai.OpenAI(base_url=f"{stack.url}/v1", api_key="unused", max_retries=0)
    before = stack.invocations("ChatFunction")

    try:
        chunks = list(
            client.chat.completions.create(
                model="groundwork-1",
                messages=[{"role": "user", "content": "How many sacraments are there?"}],
                stream=True,
            )
        )
    except openai.APIStatusError as exc:  # 502 when the function cannot start: say why
        pytest.fail(f"{exc}\n{dump_logs(stack, 'ChatFunction')}")

    served = stack.invocations("ChatFunction", reaching=before + 1)
    assert served == before + 1, dump_logs(stack, "ChatFunction")
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert "seven sacraments" in text
    citations = (chunks[-1].model_extra or {}).get("citations")
    assert citations, chunks[-1]
    assert any("seven sacraments" in c["cited_text"] for c in citations)
    assert all(not (c.model_extra or {}).get("citations") for c in chunks[:-1])


def test_given_a_native_chat_retried_with_its_request_id_then_one_question_is_stored(
    stack: Stack,
) -> None:
    key = stack.world.keys["alice"]
    body = ask("What is prayer?", stream=True, request_id="lambda-retry-1", conversation_id="c-l1")

    first = httpx.post(f"{stack.url}/v1/chat", json=body, headers=bearer(key), timeout=120)
    retried = httpx.post(f"{stack.url}/v1/chat", json=body, headers=bearer(key), timeout=120)

    assert first.status_code == retried.status_code == 200, first.text
    assert first.headers["content-type"].startswith("text/event-stream")
    done, again = sse_events(first.text)[-1], sse_events(retried.text)[-1]
    assert done["event"] == again["event"] == "done", dump_logs(stack, "ChatFunction")
    assert "lifting up of our minds" in done["data"]["text"]
    assert again["data"]["question_id"] == done["data"]["question_id"]
    assert again["data"]["text"] == done["data"]["text"]
    # Through the buffered API function (Mangum): the conversation holds one question.
    conversation = httpx.get(f"{stack.url}/v1/conversations/c-l1", headers=bearer(key), timeout=60)
    assert conversation.status_code == 200, conversation.text
    assert conversation.json()["questions"] == 1


def test_given_50_concurrent_duplicates_of_a_native_chat_then_one_answer_is_generated(
    stack: Stack,
) -> None:
    """On DynamoDB (moto's server): fifty requests with one request_id at once, through the
    router and the chat function under the Web Adapter, make one generation; every other is
    its replay, and one question is stored."""
    key = stack.world.keys["alice"]
    body = ask("Who made us?", stream=True, request_id="lambda-dup-50", conversation_id="c-l50")

    def send(_: int) -> httpx.Response:
        return httpx.post(f"{stack.url}/v1/chat", json=body, headers=bearer(key), timeout=600)

    with ThreadPoolExecutor(max_workers=50) as pool:
        responses = list(pool.map(send, range(50)))

    assert {r.status_code for r in responses} == {200}, dump_logs(stack, "ChatFunction")
    dones = [sse_events(r.text)[-1] for r in responses]
    assert {d["event"] for d in dones} == {"done"}
    generated = [d for d in dones if not d["data"].get("replayed")]
    assert len(generated) == 1, [d["data"].get("replayed") for d in dones]
    assert {d["data"]["question_id"] for d in dones} == {generated[0]["data"]["question_id"]}
    assert {d["data"]["text"] for d in dones} == {generated[0]["data"]["text"]}
    conversation = httpx.get(f"{stack.url}/v1/conversations/c-l50", headers=bearer(key), timeout=60)
    assert conversation.json()["questions"] == 1


def test_given_vertex_path_when_checking_grounding_then_the_grounding_function_answers(
    stack: Stack,
) -> None:
    event = json.loads((EVENTS / "grounding_check.json").read_text())
    before = stack.invocations("GroundingFunction")

    response = httpx.post(f"{stack.url}{event['path']}", content=event["body"], timeout=60)

    assert response.status_code == 200, response.text
    assert stack.invocations("GroundingFunction", reaching=before + 1) == before + 1
    body = response.json()
    assert 0.5 < body["supportScore"] <= 1
    assert body["citedChunks"]
    bad = httpx.post(f"{stack.url}{event['path']}", content=b"{", timeout=60)
    assert bad.status_code == 400
    assert bad.json()["error"]["code"] == "request.invalid_json"


def test_given_a_source_scope_when_resolving_then_the_scope_function_narrows_it(
    stack: Stack,
) -> None:
    before = stack.invocations("ScopeFunction")
    alice, bob = stack.world.keys["alice"], stack.world.keys["bob"]
    body = {"collection": "catechism", "scope": {"source_id": "report-2023"}}

    # The first request starts the function (httpx's default 5 s is short on a loaded machine).
    url = f"{stack.url}/v1/scope/resolve"
    resolved = httpx.post(url, json=body, headers=bearer(alice), timeout=60)
    other = {"collection": "catechism", "scope": {"collections": ["reports"]}}
    hidden = httpx.post(url, json=other, headers=bearer(bob), timeout=60)
    anonymous = httpx.post(url, json=body, timeout=60)

    assert resolved.status_code == 200, resolved.text
    assert resolved.json()["collections"] == ["reports"]
    assert resolved.json()["source_ids"] == ["report-2023"]
    assert hidden.status_code == 403
    assert hidden.json()["error"]["code"] == "collections.no_access"
    assert anonymous.status_code == 401
    assert stack.invocations("ScopeFunction", reaching=before + 3) == before + 3


def test_given_a_jsonl_object_when_enqueued_and_worked_then_the_summary_counts_every_line(
    stack: Stack,
) -> None:
    key = "batches/lambda local.jsonl"
    bucket = stack.aws.input_bucket
    stack.s3.put_object(Bucket=bucket, Key=key, Body=(EVENTS / "batch_input.jsonl").read_bytes())
    event = json.loads((EVENTS / "s3_object_created.json").read_text())
    event["Records"][0]["s3"]["bucket"]["name"] = bucket
    event["Records"][0]["s3"]["object"]["key"] = quote_plus(key, safe="/")

    enqueued = stack.invoke("BatchEnqueueFunction", event)
    stack.drain(stack.aws.queue_url, "BatchWorkerFunction", batch_size=10)
    assembled = stack.drain(stack.aws.assemble_queue_url, "BatchAssembleFunction", batch_size=1)

    lines = [
        line for line in (EVENTS / "batch_input.jsonl").read_text().splitlines() if line.strip()
    ]
    assert enqueued["batches"][0]["lines"] == len(lines), enqueued
    assert assembled == 1
    summary = read_json(stack, f"results/{key}/summary.json")
    assert summary["total"] == len(lines)
    assert summary["succeeded"] + summary["failed"] == len(lines)
    assert summary["succeeded"] >= 2
    assert {f["code"] for f in summary["failures"]} >= {"line.missing_id"}


def test_given_the_stage_prefix_missing_or_an_unknown_route_then_api_gateway_refuses(
    stack: Stack,
) -> None:
    base = stack.url.rsplit("/", 1)[0]
    assert httpx.get(f"{base}/health").status_code == 403
    unknown = httpx.post(f"{stack.url}/v1/scope/nothing-here-but-proxy", json={})
    assert unknown.status_code in {404, 405}  # /{proxy+} -> the API function's own 404
    assert httpx.get(f"{stack.url}/health").json()["status"] == "ok"
