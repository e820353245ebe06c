"""Batch enqueue function: an object created in the input bucket -> one SQS message per line."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any
from urllib.parse import unquote_plus

from groundwork.batch.clients import get_pipeline
from groundwork.observability.entry import instrumented
from groundwork.observability.tools import get_logger


def _enqueue(event: dict[str, Any], _context: Any) -> dict[str, Any]:
    pipeline = get_pipeline()
    reports = []
    for record in event.get("Records", []):
        bucket = record["s3"]["bucket"]["name"]
        # S3 events carry keys URL-encoded ("a+b.jsonl" for "a b.jsonl").
        key = unquote_plus(record["s3"]["object"]["key"])
        report = pipeline.enqueue(bucket, key)
        if report is None:
            get_logger().info("skipped: an output, or already enqueued", bucket=bucket, key=key)
            continue
        get_logger().info("enqueued", bucket=bucket, key=key, **asdict(report))
        reports.append(asdict(report))
    return {"batches": reports}


handler = instrumented(
    _enqueue, correlation_id_path='Records[0].responseElements."x-amz-request-id"'
)
