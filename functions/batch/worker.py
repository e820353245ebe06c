"""Batch worker function: one grounding check per SQS message, with partial batch failures.

A message that raises is reported in ``batchItemFailures`` and only it is retried; after the
queue's ``maxReceiveCount`` receives it moves to the dead-letter queue.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from aws_lambda_powertools.utilities.batch import (
    BatchProcessor,
    EventType,
    process_partial_response,
)

from groundwork.batch.clients import get_pipeline
from groundwork.observability.entry import instrumented, record_support_score
from groundwork.observability.tools import get_logger

if TYPE_CHECKING:
    from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord

# A batch whose every record failed is reported record by record too, not raised: the same
# response shape either way, and the queue's redrive counts each message alike.
processor = BatchProcessor(event_type=EventType.SQS, raise_on_entire_batch_failure=False)


def _record(record: SQSRecord) -> None:
    logger = get_logger()
    logger.append_keys(message_id=record.message_id)
    try:
        result = get_pipeline().process(record.body)
    except Exception:
        # The processor reports the message as failed without a word: this is its log line.
        logger.exception(
            "message failed", receive_count=record.attributes.approximate_receive_count
        )
        raise
    if "response" in result:
        record_support_score(result["response"]["supportScore"])
    else:
        logger.info("line failed", line=result["line"], id=result["id"], **result["error"])


def _process(event: dict[str, Any], context: Any) -> dict[str, Any]:
    response: dict[str, Any] = process_partial_response(
        event=event, record_handler=_record, processor=processor, context=context
    )
    return response


handler = instrumented(_process)
