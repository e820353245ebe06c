"""The ingest function against moto's S3 over HTTP and the embedded index: a document put in
the documents bucket becomes searchable with its source registered, the same version twice
changes nothing, a replaced version's late event is skipped, a removal deletes, and a document
that fails raises (Lambda retries it, then keeps it aside) and counts in IngestFailures."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from groundwork.retrieval.base import SearchFilter
from groundwork.retrieval.factory import get_retriever
from groundwork.settings import get_settings
from groundwork.storage.factory import get_storage
from tests.serverless.conftest import Aws, load_event, run_function

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


def event(aws: Aws, key: str, *, removed: bool = False, etag: str | None = None) -> dict[str, Any]:
    from urllib.parse import quote_plus

    sample = load_event("s3_document_created.json")
    record = sample["Records"][0]
    record["s3"]["bucket"]["name"] = BUCKET
    record["s3"]["object"]["key"] = quote_plus(key, safe="/")
    if removed:
        record["eventName"] = "ObjectRemoved:Delete"
        del record["s3"]["object"]["eTag"]
    else:
        record["s3"]["object"]["eTag"] = etag or aws.s3.head_object(Bucket=BUCKET, Key=key)[
            "ETag"
        ].strip('"')
    return sample


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


def test_given_a_document_without_text_then_it_raises_and_counts_a_failure(
    documents: Aws, capsys: pytest.CaptureFixture[str]
) -> None:
    from groundwork.ingest.s3_events import IngestFailed

    with pytest.raises(IngestFailed, match="no text found"):
        run_function("ingest", put(documents, "handbook/empty.md", b"   \n"))

    out = capsys.readouterr().out
    metrics = [json.loads(line) for line in out.splitlines() if line.startswith('{"_aws"')]
    assert any(m.get("IngestFailures") == [1.0] for m in metrics)
    assert any('"document failed"' in line for line in out.splitlines())
