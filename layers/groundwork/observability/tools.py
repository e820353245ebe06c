"""The Powertools logger, metrics and tracer every handler shares.

Powertools reads ``POWERTOOLS_SERVICE_NAME`` and ``POWERTOOLS_METRICS_NAMESPACE`` (set by the
template); the defaults below apply when a handler runs outside Lambda.
"""

from __future__ import annotations

import importlib.util
import logging
import os
import sys
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from aws_lambda_powertools import Logger, Metrics, Tracer

SERVICE = "groundwork"
NAMESPACE = "Groundwork"
#: The dimension naming the function, as Powertools names it on ``ColdStart``.
FUNCTION_DIMENSION = "function_name"


class _CurrentStdout:
    """Whatever ``sys.stdout`` is when a record is written, not when the logger was built:
    ``groundwork invoke`` moves logs to stderr around a handler that may be loaded earlier."""

    def write(self, text: str) -> int:
        return sys.stdout.write(text)

    def flush(self) -> None:
        sys.stdout.flush()


@lru_cache(maxsize=1)
def get_logger() -> Logger:
    from aws_lambda_powertools import Logger

    return Logger(
        service=os.environ.get("POWERTOOLS_SERVICE_NAME", SERVICE),
        logger_handler=logging.StreamHandler(_CurrentStdout()),
    )


@lru_cache(maxsize=1)
def get_metrics() -> Metrics:
    from aws_lambda_powertools import Metrics

    return Metrics(
        namespace=os.environ.get("POWERTOOLS_METRICS_NAMESPACE", NAMESPACE),
        service=os.environ.get("POWERTOOLS_SERVICE_NAME", SERVICE),
    )


@lru_cache(maxsize=1)
def get_tracer() -> Tracer | None:
    """The X-Ray tracer inside Lambda; None elsewhere or without ``aws-xray-sdk``.

    Powertools' Tracer imports the X-Ray SDK as soon as it is built, even when tracing is
    disabled, so it is not built at all where it could not send anything: that keeps the SDK
    an optional extra and its import off local runs.
    """
    in_lambda = "LAMBDA_TASK_ROOT" in os.environ and "AWS_SAM_LOCAL" not in os.environ
    disabled = os.environ.get("POWERTOOLS_TRACE_DISABLED", "false").lower() in {"1", "true"}
    if not in_lambda or disabled or importlib.util.find_spec("aws_xray_sdk") is None:
        return None
    from aws_lambda_powertools import Tracer

    return Tracer(service=os.environ.get("POWERTOOLS_SERVICE_NAME", SERVICE))
