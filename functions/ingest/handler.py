"""Ingest function: a document created in, or removed from, the documents bucket is indexed or
deleted (``groundwork.ingest.s3_events``). The bucket's events reach it through a queue, one
message per call, at most ``IngestMaxConcurrency`` at once. A document that fails raises: its
message is reported failed and received again, and after three receives moves to the failure
queue; each failure also counts in ``IngestFailures``."""

from __future__ import annotations

import json
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType

from groundwork.observability.entry import instrumented
from groundwork.observability.tools import get_logger, get_metrics

if TYPE_CHECKING:
    from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord

    from groundwork.ingest.s3_events import DocumentIngestion

processor = BatchProcessor(event_type=EventType.SQS, raise_on_entire_batch_failure=False)


@lru_cache(maxsize=1)
def _ingestion() -> DocumentIngestion:
    import boto3

    from groundwork.ingest.s3_events import DocumentIngestion
    from groundwork.retrieval.factory import get_retriever
    from groundwork.settings import get_settings
    from groundwork.storage.factory import get_storage

    settings = get_settings()
    return DocumentIngestion(boto3.client("s3"), get_retriever(settings), get_storage(settings))


def _message(record: SQSRecord) -> list[dict[str, Any]]:
    """The outcome of each document the S3 notification in the message names."""
    from aws_lambda_powertools.metrics import MetricUnit

    from groundwork.ingest.s3_events import DocumentEvent, IngestFailed

    outcomes = []
    # S3's test event, sent when the notification is set up, has no Records.
    for s3_record in json.loads(record.body).get("Records", []):
        document = DocumentEvent.of(s3_record)
        try:
            outcome = _ingestion().handle(document)
        except IngestFailed:
            get_metrics().add_metric("IngestFailures", MetricUnit.Count, 1)
            get_logger().exception(
                "document failed",
                bucket=document.bucket,
                key=document.key,
                receive_count=record.attributes.approximate_receive_count,
            )
            raise
        get_logger().info(outcome, bucket=document.bucket, key=document.key)
        outcomes.append({"key": document.key, "outcome": outcome})
    return outcomes


def _ingest(event: dict[str, Any], context: Any) -> dict[str, Any]:
    with processor(event.get("Records", []), _message, lambda_context=context):
        processed = processor.process()
    # Lambda reads batchItemFailures; the outcomes are for `groundwork invoke` and the tests.
    documents = [o for status, outcomes, _ in processed if status == "success" for o in outcomes]
    return {**processor.response(), "documents": documents}


handler = instrumented(_ingest)
