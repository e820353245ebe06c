"""Batch enqueue function: an object created in the input bucket -> one SQS message per line.

The object is streamed, its messages sent in parallel, and a checkpoint saved every so many
lines. When the function's time runs short it stops at a checkpoint and raises: Lambda retries
the S3 event (twice), and the retry goes on from there.
"""

from __future__ import annotations

import time
from dataclasses import asdict
from typing import Any
from urllib.parse import unquote_plus

from groundwork.batch.clients import get_pipeline
from groundwork.observability.entry import instrumented
from groundwork.observability.tools import get_logger

#: Time kept in hand after the last checkpoint: a checkpoint's lines are sent in seconds.
_MARGIN_S = 60


def _enqueue(event: dict[str, Any], context: Any) -> dict[str, Any]:
    pipeline = get_pipeline()
    deadline = time.monotonic() + context.get_remaining_time_in_millis() / 1000 - _MARGIN_S
    reports = []
    for record in event.get("Records", []):
        bucket = record["s3"]["bucket"]["name"]
        # S3 events carry keys URL-encoded ("a+b.jsonl" for "a b.jsonl").
        key = unquote_plus(record["s3"]["object"]["key"])
        report = pipeline.enqueue(bucket, key, deadline=deadline)
        if report is None:
            get_logger().info("skipped: an output, or already enqueued", bucket=bucket, key=key)
            continue
        get_logger().info("enqueued", bucket=bucket, key=key, **asdict(report))
        reports.append(asdict(report))
    return {"batches": reports}


handler = instrumented(
    _enqueue, correlation_id_path='Records[0].responseElements."x-amz-request-id"'
)
