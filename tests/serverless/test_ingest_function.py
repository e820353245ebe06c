"""The ingest function against moto's S3 over HTTP and the embedded index, on the documents
queue's messages: a document put in the documents bucket becomes searchable with its source
registered, the same version twice changes nothing, a replaced version's late event is
skipped, a removal deletes, and a document that fails is reported failed (received again, then
kept aside by the queue's redrive) and counts in IngestFailures."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from groundwork.retrieval.base import SearchFilter
from groundwork.retrieval.factory import get_retriever
from groundwork.settings import get_settings
from groundwork.storage.factory import get_storage
from tests.serverless.conftest import Aws, document_event, run_function

BUCKET = "groundwork-documents"
KEY = "handbook/guides/getting started.md"
GUIDE = b"""# Getting started

The night ferry to Orkney leaves Aberdeen at five in the evening and docks at Kirkwall.
"""


@pytest.fixture
def documents(aws: Aws, monkeypatch: pytest.MonkeyPatch) -> Iterator[Aws]:
    monkeypatch.setenv("GROUNDWORK_RETRIEVAL", "embedded")
    get_settings.cache_clear()
    aws.s3.create_bucket(Bucket=BUCKET)
    yield aws
    get_settings.cache_clear()


def event(aws: Aws, key: str, *, removed: bool = False) -> dict[str, Any]:
    if removed:
        return document_event(BUCKET, key, removed=True)
    etag = aws.s3.head_object(Bucket=BUCKET, Key=key)["ETag"].strip('"')
    return document_event(BUCKET, key, etag=etag)


def put(aws: Aws, key: str, body: bytes) -> dict[str, Any]:
    aws.s3.put_object(Bucket=BUCKET, Key=key, Body=body)
    return event(aws, key)


def outcomes(result: dict[str, Any]) -> list[str]:
    return [document["outcome"] for document in result["documents"]]


def search(question: str) -> list[Any]:
    return get_retriever(get_settings()).search(question, SearchFilter(collections=["handbook"]), 5)


def test_given_a_document_put_when_ingested_then_it_is_searchable_with_its_source(
    documents: Aws,
) -> None:
    result = run_function("ingest", put(documents, KEY, GUIDE))

    assert outcomes(result) == ["added"]
    (source,) = get_storage(get_settings()).list_sources("handbook")
    assert source.location == "guides/getting started.md"
    assert source.title == "Getting started"
    hits = search("When does the ferry to Orkney leave?")
    assert hits
    assert "Kirkwall" in hits[0].card.text
    assert hits[0].card.source_id == source.id


def test_given_the_same_version_twice_then_the_second_changes_nothing(documents: Aws) -> None:
    created = put(documents, KEY, GUIDE)
    run_function("ingest", created)

    assert outcomes(run_function("ingest", created)) == ["unchanged"]
    assert len(get_storage(get_settings()).list_sources("handbook")) == 1


def test_given_a_late_event_of_a_replaced_version_then_it_is_skipped(documents: Aws) -> None:
    first = put(documents, KEY, GUIDE)
    second = put(documents, KEY, GUIDE.replace(b"five", b"six"))
    run_function("ingest", second)

    assert outcomes(run_function("ingest", first)) == ["skipped"]
    assert "six" in search("When does the ferry leave?")[0].card.text


def test_given_a_removed_document_then_its_source_and_passages_are_deleted(
    documents: Aws,
) -> None:
    run_function("ingest", put(documents, KEY, GUIDE))
    documents.s3.delete_object(Bucket=BUCKET, Key=KEY)

    assert outcomes(run_function("ingest", event(documents, KEY, removed=True))) == ["deleted"]
    assert get_storage(get_settings()).list_sources("handbook") == []
    assert search("When does the ferry to Orkney leave?") == []


def test_given_a_document_without_text_then_its_message_fails_and_counts_a_failure(
    documents: Aws, capsys: pytest.CaptureFixture[str]
) -> None:
    sample = put(documents, "handbook/empty.md", b"   \n")

    result = run_function("ingest", sample)

    assert result["batchItemFailures"] == [{"itemIdentifier": sample["Records"][0]["messageId"]}]
    assert result["documents"] == []
    out = capsys.readouterr().out
    metrics = [json.loads(line) for line in out.splitlines() if line.startswith('{"_aws"')]
    assert any(m.get("IngestFailures") == [1.0] for m in metrics)
    failed = [json.loads(line) for line in out.splitlines() if '"document failed"' in line]
    assert failed
    assert "no text found" in failed[0]["exception"]


def test_given_s3s_test_event_then_nothing_is_ingested_and_nothing_fails(documents: Aws) -> None:
    sample = put(documents, KEY, GUIDE)
    sample["Records"][0]["body"] = json.dumps({"Service": "Amazon S3", "Event": "s3:TestEvent"})

    assert run_function("ingest", sample) == {"batchItemFailures": [], "documents": []}
