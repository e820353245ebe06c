"""Batch assembly function: one message per call, a batch whose every line is done (or the
rest of one whose assembly ran out of time): its parts become ``results.jsonl`` and
``summary.json``. A message that fails is received again, and after ``BatchMaxReceiveCount``
receives moves to the dead-letter queue."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from aws_lambda_powertools.utilities.batch import (
    BatchProcessor,
    EventType,
    process_partial_response,
)

from groundwork.batch.clients import get_assembler
from groundwork.observability.entry import instrumented
from groundwork.observability.tools import get_logger

if TYPE_CHECKING:
    from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord

#: Time kept in hand after a part: reading the next 8 MiB of parts takes seconds, not minutes.
_MARGIN_S = 120

processor = BatchProcessor(event_type=EventType.SQS, raise_on_entire_batch_failure=False)


def _process(event: dict[str, Any], context: Any) -> dict[str, Any]:
    deadline = time.monotonic() + context.get_remaining_time_in_millis() / 1000 - _MARGIN_S

    def assemble(record: SQSRecord) -> None:
        outcome = get_assembler().assemble(record.body, deadline=deadline)
        get_logger().info("assembly", outcome=outcome, message_id=record.message_id)

    response: dict[str, Any] = process_partial_response(
        event=event, record_handler=assemble, processor=processor, context=context
    )
    return response


handler = instrumented(_process)
