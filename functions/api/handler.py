"""The API function: the FastAPI app, buffered through Mangum for API Gateway events.

The chat routes are served by the same app under Lambda Web Adapter (``run.sh``) to stream.
"""

from __future__ import annotations

from aws_lambda_powertools.logging import correlation_paths
from mangum import Mangum

from groundwork.api.app import create_app
from groundwork.observability.entry import instrumented

handler = instrumented(
    Mangum(create_app(), lifespan="auto"), correlation_id_path=correlation_paths.API_GATEWAY_REST
)
