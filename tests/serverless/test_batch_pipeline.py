"""Batch grounding end to end against a moto server over HTTP:
S3 ObjectCreated -> enqueue handler -> SQS -> worker handler -> result JSONL and summary."""

from __future__ import annotations

import json
from typing import Any

from tests.serverless.conftest import (
    INPUT_BUCKET,
    MAX_RECEIVE_COUNT,
    OUTPUT_BUCKET,
    Aws,
    drain,
    read_json,
    read_jsonl,
    run_function,
    s3_event,
    sqs_event,
)

KEY = "incoming/answers 2026.jsonl"  # a space: the event carries it as "answers+2026"
FACTS = [
    {"factText": "Titanic is a 1997 film directed by James Cameron.", "attributes": {"a": "b"}},
    {"factText": "Over 1,500 people died when the Titanic sank on April 15, 1912."},
]


def request(line_id: str, candidate: str) -> dict[str, Any]:
    return {"id": line_id, "answerCandidate": candidate, "facts": FACTS}


INPUT = b"".join(
    line + b"\n"
    for line in (
        json.dumps(request("director", "Titanic was directed by James Cameron.")).encode(),
        b"{this is not json",
        json.dumps(request("deaths", "Over 1,500 people died in 1912.")).encode(),
        b"",
        json.dumps({"answerCandidate": "No id here."}).encode(),
        json.dumps(request("cast", "Titanic starred Brad Pitt.")).encode(),
        json.dumps(request("director", "A repeated id.")).encode(),
    )
)


def worker(event: dict[str, Any]) -> Any:
    return run_function("batch-worker", event)


def run_batch(aws: Aws) -> dict[str, Any]:
    aws.s3.put_object(Bucket=INPUT_BUCKET, Key=KEY, Body=INPUT)
    enqueued: dict[str, Any] = run_function("batch-enqueue", s3_event(INPUT_BUCKET, KEY))
    drain(aws, worker)
    return enqueued


def test_given_an_input_with_bad_lines_when_the_batch_runs_then_every_line_has_a_result(
    aws: Aws,
) -> None:
    enqueued = run_batch(aws)

    (batch,) = enqueued["batches"]
    assert (batch["lines"], batch["enqueued"], batch["rejected"]) == (6, 3, 3)
    results = read_jsonl(aws, OUTPUT_BUCKET, f"results/{KEY}/results.jsonl")
    assert [(r["line"], r["id"]) for r in results] == [
        (1, "director"),
        (2, None),
        (3, "deaths"),
        (5, None),
        (6, "cast"),
        (7, "director"),
    ]
    scores = {r["id"]: r["response"]["supportScore"] for r in results if "response" in r}
    assert scores["director"] > 0.9
    assert scores["deaths"] > 0.9
    assert scores["cast"] < 0.5
    summary = read_json(aws, OUTPUT_BUCKET, f"results/{KEY}/summary.json")
    assert summary["input"] == f"s3://{INPUT_BUCKET}/{KEY}"
    assert (summary["total"], summary["succeeded"], summary["failed"]) == (6, 3, 3)
    assert summary["mean_support_score"] == round(sum(scores.values()) / 3, 4)
    assert [(f["line"], f["code"]) for f in summary["failures"]] == [
        (2, "line.invalid_json"),
        (5, "line.missing_id"),
        (7, "line.duplicate_id"),
    ]


def test_given_a_finished_batch_when_a_message_is_delivered_again_then_nothing_changes(
    aws: Aws,
) -> None:
    run_batch(aws)
    before = read_json(aws, OUTPUT_BUCKET, f"results/{KEY}/summary.json")
    items = {i["id"]["S"]: i for i in aws.dynamodb.scan(TableName=aws.table)["Items"]}
    (batch,) = [key for key in items if "#" not in key]
    shards = int(items[batch]["shards"]["N"])
    replay = {
        "batch": batch,
        "bucket": INPUT_BUCKET,
        "key": KEY,
        "etag": aws.s3.head_object(Bucket=INPUT_BUCKET, Key=KEY)["ETag"],
        "line": 1,
        "start": 0,
        "end": INPUT.index(b"\n"),
        "shard": 0,
        "shards": shards,
    }
    aws.sqs.send_message(QueueUrl=aws.queue_url, MessageBody=json.dumps(replay))

    drain(aws, worker)

    items = {i["id"]["S"]: i for i in aws.dynamodb.scan(TableName=aws.table)["Items"]}
    counted = [int(items[f"{batch}#s{n}"]["done"]["N"]) for n in range(shards)]
    assert sum(counted) == int(items[batch]["total"]["N"]) == 6
    assert items[batch]["shards_closed"] == {"N": str(shards)}
    assert read_json(aws, OUTPUT_BUCKET, f"results/{KEY}/summary.json") == before


def test_given_the_same_object_event_twice_when_enqueued_then_lines_are_sent_once(
    aws: Aws,
) -> None:
    aws.s3.put_object(Bucket=INPUT_BUCKET, Key=KEY, Body=INPUT)
    run_function("batch-enqueue", s3_event(INPUT_BUCKET, KEY))

    again = run_function("batch-enqueue", s3_event(INPUT_BUCKET, KEY))

    assert again == {"batches": []}
    attributes = aws.sqs.get_queue_attributes(
        QueueUrl=aws.queue_url, AttributeNames=["ApproximateNumberOfMessages"]
    )["Attributes"]
    assert attributes["ApproximateNumberOfMessages"] == "3"


def test_given_poison_messages_when_they_keep_failing_then_they_reach_the_dead_letter_queue(
    aws: Aws,
) -> None:
    aws.s3.put_object(Bucket=INPUT_BUCKET, Key=KEY, Body=INPUT)
    run_function("batch-enqueue", s3_event(INPUT_BUCKET, KEY))
    aws.sqs.send_message(QueueUrl=aws.queue_url, MessageBody="not a line message")
    etag = aws.s3.head_object(Bucket=INPUT_BUCKET, Key=KEY)["ETag"]
    unknown = {"batch": "0" * 32, "bucket": INPUT_BUCKET, "key": KEY, "etag": etag}
    never_started = {**unknown, "line": 1, "start": 0, "end": 1, "shard": 0, "shards": 1}
    aws.sqs.send_message(QueueUrl=aws.queue_url, MessageBody=json.dumps(never_started))

    calls = drain(aws, worker)

    assert calls >= MAX_RECEIVE_COUNT
    dead = aws.sqs.receive_message(QueueUrl=aws.dead_letter_url, MaxNumberOfMessages=10)
    bodies = {message["Body"] for message in dead["Messages"]}
    assert bodies == {"not a line message", json.dumps(never_started)}
    summary = read_json(aws, OUTPUT_BUCKET, f"results/{KEY}/summary.json")
    assert (summary["succeeded"], summary["failed"]) == (3, 3)


def test_given_a_poison_message_among_good_ones_then_only_it_is_reported_failed(aws: Aws) -> None:
    aws.s3.put_object(Bucket=INPUT_BUCKET, Key=KEY, Body=INPUT)
    run_function("batch-enqueue", s3_event(INPUT_BUCKET, KEY))
    aws.sqs.send_message(QueueUrl=aws.queue_url, MessageBody="not a line message")
    received = []
    while len(received) < 4:
        received += aws.sqs.receive_message(QueueUrl=aws.queue_url, MaxNumberOfMessages=10)[
            "Messages"
        ]
    response = worker(sqs_event(received))

    (poison,) = [m["MessageId"] for m in received if m["Body"] == "not a line message"]
    assert response == {"batchItemFailures": [{"itemIdentifier": poison}]}
