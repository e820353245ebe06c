"""Ingest function: a document created in, or removed from, the documents bucket is indexed or
deleted (``groundwork.ingest.s3_events``). A document that fails raises: Lambda retries the
event twice, then sends it to the failure queue; each failure also counts in
``IngestFailures``."""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Any

from groundwork.observability.entry import instrumented
from groundwork.observability.tools import get_logger, get_metrics

if TYPE_CHECKING:
    from groundwork.ingest.s3_events import DocumentIngestion


@lru_cache(maxsize=1)
def _ingestion() -> DocumentIngestion:
    import boto3

    from groundwork.ingest.s3_events import DocumentIngestion
    from groundwork.retrieval.factory import get_retriever
    from groundwork.settings import get_settings
    from groundwork.storage.factory import get_storage

    settings = get_settings()
    return DocumentIngestion(boto3.client("s3"), get_retriever(settings), get_storage(settings))


def _ingest(event: dict[str, Any], _context: Any) -> dict[str, Any]:
    from aws_lambda_powertools.metrics import MetricUnit

    from groundwork.ingest.s3_events import DocumentEvent, IngestFailed

    outcomes = []
    for record in event.get("Records", []):
        if "s3" not in record:
            continue  # S3's test event when the notification is set up
        document = DocumentEvent.of(record)
        try:
            outcome = _ingestion().handle(document)
        except IngestFailed as error:
            get_metrics().add_metric("IngestFailures", MetricUnit.Count, 1)
            get_logger().exception("document failed", bucket=document.bucket, key=document.key)
            raise error
        get_logger().info(outcome, bucket=document.bucket, key=document.key)
        outcomes.append({"key": document.key, "outcome": outcome})
    return {"documents": outcomes}


handler = instrumented(
    _ingest, correlation_id_path='Records[0].responseElements."x-amz-request-id"'
)
