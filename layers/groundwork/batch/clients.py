"""The batch pipeline and assembler built from settings and boto3's default configuration.

boto3 reads the region and credentials as usual, and ``AWS_ENDPOINT_URL`` (or
``AWS_ENDPOINT_URL_S3`` and so on) to reach a local endpoint such as a moto server.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Any

from groundwork.settings import Settings, get_settings

if TYPE_CHECKING:
    from groundwork.batch.assembly import Assembler
    from groundwork.batch.pipeline import BatchPipeline
    from groundwork.batch.progress import Progress

#: Connections per client: the enqueue function sends, and the assembler reads, in parallel.
_CONNECTIONS = 64


@lru_cache(maxsize=1)
def get_pipeline(settings: Settings | None = None) -> BatchPipeline:
    from groundwork.batch.pipeline import BatchPipeline
    from groundwork.grounding.factory import get_verifier

    settings = settings or get_settings()
    if not settings.batch_queue_url:
        raise RuntimeError("GROUNDWORK_BATCH_QUEUE_URL is not set: batch grounding needs a queue")
    return BatchPipeline(
        s3=_client("s3"),
        sqs=_client("sqs"),
        progress=_progress(settings),
        verifier=get_verifier(settings),
        queue_url=settings.batch_queue_url,
        assemble_queue_url=_assemble_queue(settings),
        output_prefix=settings.batch_output_prefix,
        output_bucket=settings.batch_output_bucket,
    )


@lru_cache(maxsize=1)
def get_assembler(settings: Settings | None = None) -> Assembler:
    from groundwork.batch.assembly import Assembler

    settings = settings or get_settings()
    return Assembler(
        s3=_client("s3"),
        sqs=_client("sqs"),
        progress=_progress(settings),
        queue_url=_assemble_queue(settings),
        output_prefix=settings.batch_output_prefix,
    )


def _assemble_queue(settings: Settings) -> str:
    if not settings.batch_assemble_queue_url:
        raise RuntimeError(
            "GROUNDWORK_BATCH_ASSEMBLE_QUEUE_URL is not set: batch grounding assembles its "
            "results through a queue"
        )
    return settings.batch_assemble_queue_url


def _progress(settings: Settings) -> Progress:
    from groundwork.batch.progress import Progress

    return Progress(_client("dynamodb"), settings.batch_table)


def _client(service: str) -> Any:
    import boto3
    from botocore.config import Config

    return boto3.client(service, config=Config(max_pool_connections=_CONNECTIONS))
