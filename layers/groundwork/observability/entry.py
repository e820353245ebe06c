"""``instrumented``: wraps a Lambda handler in Powertools' logger, metrics and tracer."""

from __future__ import annotations

import functools
import os
import time
from typing import TYPE_CHECKING, Any

from groundwork.observability.tools import (
    FUNCTION_DIMENSION,
    get_logger,
    get_metrics,
    get_tracer,
)

if TYPE_CHECKING:
    from collections.abc import Callable

    Handler = Callable[[Any, Any], Any]


def instrumented(
    handler: Handler, *, correlation_id_path: str | None = None
) -> Callable[[Any, Any], Any]:
    """The handler with JSON logs carrying the Lambda context, a correlation id from the event
    (``correlation_id_path``, a JMESPath), ``Requests``/``Latency`` EMF metrics with the
    function's name as a dimension, flushed after each invocation, and an X-Ray segment where
    tracing is available."""
    from aws_lambda_powertools.metrics import MetricUnit

    metrics = get_metrics()

    @functools.wraps(handler)
    def measured(event: Any, context: Any) -> Any:
        # Per function, not only per service: each function's requests are a series of their
        # own (a dimension lasts until the flush after this invocation).
        metrics.add_dimension(FUNCTION_DIMENSION, context.function_name)
        started = time.perf_counter()
        try:
            return handler(event, context)
        finally:
            metrics.add_metric("Requests", MetricUnit.Count, 1)
            elapsed_ms = (time.perf_counter() - started) * 1000
            metrics.add_metric("Latency", MetricUnit.Milliseconds, elapsed_ms)

    tracer = get_tracer()
    traced = tracer.capture_lambda_handler(measured) if tracer else measured
    flushed = metrics.log_metrics(traced, capture_cold_start_metric=True)
    wrapped: Handler = get_logger().inject_lambda_context(
        flushed, correlation_id_path=correlation_id_path, clear_state=True
    )
    return wrapped


def record_support_score(score: float) -> None:
    """One grounding check's support score, as an EMF metric (0-1)."""
    from aws_lambda_powertools.metrics import MetricUnit

    get_metrics().add_metric("SupportScore", MetricUnit.NoUnit, score)


def record_answer(*, cached: bool, support_score: float | None) -> None:
    """A chat answer's cache hit (1 or 0: its mean is the hit rate) and support score.

    Inside Lambda only, where every request's metrics are flushed (``observability.asgi``);
    a local server would only pile them up.
    """
    if "AWS_LAMBDA_FUNCTION_NAME" not in os.environ:
        return
    from aws_lambda_powertools.metrics import MetricUnit

    metrics = get_metrics()
    metrics.add_metric("CacheHit", MetricUnit.Count, 1 if cached else 0)
    if support_score is not None:
        metrics.add_metric("SupportScore", MetricUnit.NoUnit, support_score)


#: Streams that ended with an error event after their 200 (the ChatStreamFailuresAlarm's metric).
STREAM_FAILURES = "StreamFailures"


def record_stream_failure() -> None:
    """A streamed answer that failed after its 200: the response is an HTTP success ending in an
    error event, which neither Lambda's ``Errors`` nor API Gateway's ``5XXError`` counts.

    Inside Lambda only, as :func:`record_answer`.
    """
    if "AWS_LAMBDA_FUNCTION_NAME" not in os.environ:
        return
    from aws_lambda_powertools.metrics import MetricUnit

    get_metrics().add_metric(STREAM_FAILURES, MetricUnit.Count, 1)
