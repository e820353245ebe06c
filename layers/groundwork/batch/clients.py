"""The batch pipeline built from settings and boto3's default configuration.

boto3 reads the region and credentials as usual, and ``AWS_ENDPOINT_URL`` (or
``AWS_ENDPOINT_URL_S3`` and so on) to reach a local endpoint such as a moto server.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

from groundwork.settings import Settings, get_settings

if TYPE_CHECKING:
    from groundwork.batch.pipeline import BatchPipeline


@lru_cache(maxsize=1)
def get_pipeline(settings: Settings | None = None) -> BatchPipeline:
    import boto3

    from groundwork.batch.pipeline import BatchPipeline
    from groundwork.batch.progress import Progress
    from groundwork.grounding.factory import get_verifier

    settings = settings or get_settings()
    if not settings.batch_queue_url:
        raise RuntimeError("GROUNDWORK_BATCH_QUEUE_URL is not set: batch grounding needs a queue")
    return BatchPipeline(
        s3=boto3.client("s3"),
        sqs=boto3.client("sqs"),
        progress=Progress(boto3.client("dynamodb"), settings.batch_table),
        verifier=get_verifier(settings),
        queue_url=settings.batch_queue_url,
        output_prefix=settings.batch_output_prefix,
        output_bucket=settings.batch_output_bucket,
    )
