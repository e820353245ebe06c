"""Sentence embeddings from Amazon Bedrock: Titan Text Embeddings V2 or Cohere Embed
Multilingual v3, through ``InvokeModel`` (boto3, which Lambda's Python runtime includes).

Titan embeds one text per call, Cohere up to 96: a call's texts are sent in batches of that
size, several batches at once. Throttling, the service's 5xx and lost connections are retried
with bounded exponential backoff; what still fails is an :class:`~groundwork.errors.ApiError`
(``embeddings.throttled``, ``embeddings.timeout`` or ``embeddings.failed``, with Bedrock's
error code). Request bodies, limits and prices: docs/retrieval.md, *Bedrock embeddings*.
"""

from __future__ import annotations

import json
import logging
import random
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

import numpy as np

from groundwork.embeddings.base import Embedder
from groundwork.embeddings.models import BEDROCK_MODELS, COHERE_V3, TITAN_V2
from groundwork.errors import ApiError

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    import numpy.typing as npt

    from groundwork.embeddings.base import Role

logger = logging.getLogger(__name__)

TITAN = TITAN_V2.name
COHERE = COHERE_V3.name

#: Texts per InvokeModel call: Titan takes one ``inputText``, Cohere a list of at most 96.
BATCH_SIZES: dict[str, int] = {TITAN: 1, COHERE: 96}
#: A text is cut to its first this many characters, at a space when there is one: Cohere
#: refuses longer ones, and ingest packs passages to about 900 (docs/retrieval.md).
MAX_CHARS = 2048
#: Calls in flight at once for one ``embed``: Bedrock throttles embedding models by requests
#: per minute, so more would mostly be throttled.
CONCURRENT_CALLS = 8
#: Attempts per call, and the longest wait between two: at most 0.25 + 0.5 + 1 + 2 + 4 s.
ATTEMPTS = 6
MAX_BACKOFF_S = 4.0
#: ``Retry-After`` of ``embeddings.throttled``: the quotas are per minute.
THROTTLED_RETRY_AFTER_S = 10

_RETRIED_CODES = frozenset(
    {
        "ThrottlingException",
        "ServiceUnavailableException",
        "InternalServerException",
        "ModelNotReadyException",
        "ModelTimeoutException",
    }
)
_RETRIED_STATUSES = frozenset({429, 500, 502, 503, 504})


class BedrockEmbedder(Embedder):
    """Unit-length vectors from a Bedrock embedding model; the client is made on first use."""

    def __init__(
        self,
        model_id: str = TITAN,
        *,
        region: str | None = None,
        timeout_s: float = 10.0,
        client: Any = None,
        concurrency: int = CONCURRENT_CALLS,
        sleep: Callable[[float], object] = time.sleep,
    ) -> None:
        if model_id not in BEDROCK_MODELS:
            raise ValueError(f"unknown Bedrock embedding model {model_id!r}")
        self.model_id = model_id
        # What the index records: another model, or Titan at another size, is a mismatch.
        self.model = BEDROCK_MODELS[model_id]
        self._region = region
        self._timeout_s = timeout_s
        self._client = client
        self._client_lock = threading.Lock()
        self._concurrency = concurrency
        self._sleep = sleep

    def embed(self, texts: Sequence[str], *, role: Role) -> npt.NDArray[np.float32]:
        size = BATCH_SIZES[self.model_id]
        batches = [[clip(t) for t in texts[i : i + size]] for i in range(0, len(texts), size)]
        if not batches:
            return np.zeros((0, self.dimension), dtype=np.float32)
        if len(batches) == 1 or self._concurrency == 1:
            parts = [self._embed_batch(batch, role) for batch in batches]
        else:
            parts = self._in_parallel(batches, role)
        vectors = np.vstack(parts)
        # Both models return unit vectors (Titan when asked to normalise); normalised here
        # too, so that a dot product is the cosine whatever came back.
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        unit: npt.NDArray[np.float32] = (vectors / np.clip(norms, 1e-12, None)).astype(np.float32)
        return unit

    def _in_parallel(self, batches: list[list[str]], role: Role) -> list[npt.NDArray[np.float32]]:
        pool = ThreadPoolExecutor(min(self._concurrency, len(batches)))
        futures = [pool.submit(self._embed_batch, batch, role) for batch in batches]
        try:
            return [future.result() for future in futures]
        finally:
            # A failed batch fails the call: the batches not yet sent are not.
            pool.shutdown(wait=True, cancel_futures=True)

    def _embed_batch(self, texts: list[str], role: Role) -> npt.NDArray[np.float32]:
        if self.model_id == COHERE:
            body: dict[str, Any] = {
                "texts": texts,
                "input_type": "search_query" if role == "query" else "search_document",
                # Past 512 tokens (2,048 characters of Thai or Chinese may be), the end is
                # dropped rather than the call refused.
                "truncate": "END",
            }
        else:
            # Titan V2 has no query/passage distinction; normalised, as the index's inner
            # product needs.
            (text,) = texts
            body = {"inputText": text, "dimensions": self.dimension, "normalize": True}
        reply = self._invoke(body)
        try:
            rows = reply["embeddings"] if self.model_id == COHERE else [reply["embedding"]]
            vectors = np.asarray(rows, dtype=np.float32)
        except (KeyError, TypeError, ValueError) as error:
            raise _failed(f"Bedrock answered {self.model_id} without embeddings") from error
        if vectors.shape != (len(texts), self.dimension):
            raise _failed(
                f"Bedrock answered {vectors.shape[0]} vectors of {vectors.shape[-1]} dimensions "
                f"for {len(texts)} texts of {self.model_id}, which has {self.dimension}"
            )
        return vectors

    def _invoke(self, body: dict[str, Any]) -> Any:
        """One InvokeModel call, retried with backoff while Bedrock is throttling or failing."""
        from botocore.exceptions import BotoCoreError, ClientError

        payload = json.dumps(body, ensure_ascii=False)
        for attempt in range(ATTEMPTS):
            try:
                response = self.client().invoke_model(
                    modelId=self.model_id,
                    body=payload,
                    contentType="application/json",
                    accept="application/json",
                )
                raw = response["body"].read()
            except (ClientError, BotoCoreError) as error:
                retried, failure = self._failure(error)
                if not retried or attempt == ATTEMPTS - 1:
                    raise failure from error
                logger.warning("Bedrock %s: %s; retrying", self.model_id, error)
                self._sleep(backoff(attempt))
                continue
            try:
                return json.loads(raw)
            except ValueError as error:
                raise _failed(f"Bedrock answered {self.model_id} with no JSON") from error
        raise AssertionError("unreachable")

    def _failure(self, error: Exception) -> tuple[bool, ApiError]:
        """Whether ``error`` is worth another attempt, and what to raise when it is not."""
        from botocore.exceptions import (
            ClientError,
            ConnectionClosedError,
            ConnectTimeoutError,
            EndpointConnectionError,
            ReadTimeoutError,
        )

        timed_out = ApiError(
            504, "embeddings.timeout", f"Bedrock did not embed with {self.model_id} in time."
        )
        if isinstance(error, ClientError):
            details = error.response.get("Error", {})
            code, message = details.get("Code", "error"), details.get("Message", "")
            status = error.response.get("ResponseMetadata", {}).get("HTTPStatusCode")
            retried = code in _RETRIED_CODES or status in _RETRIED_STATUSES
            if code == "ThrottlingException":
                return retried, ApiError(
                    503,
                    "embeddings.throttled",
                    f"Bedrock kept throttling {self.model_id} after {ATTEMPTS} attempts: retry "
                    "later, or raise its requests-per-minute quota.",
                    headers={"Retry-After": str(THROTTLED_RETRY_AFTER_S)},
                )
            if code == "ModelTimeoutException":
                return retried, timed_out
            return retried, _failed(f"Bedrock {code}: {message}".rstrip(": "))
        if isinstance(error, (ConnectTimeoutError, ReadTimeoutError)):
            return True, timed_out
        if isinstance(error, (EndpointConnectionError, ConnectionClosedError)):
            return True, _failed(f"Bedrock is unreachable ({error})")
        return False, _failed(f"Bedrock could not be called ({error})")  # credentials, region

    def client(self) -> Any:
        with self._client_lock:
            if self._client is None:
                import boto3
                from botocore.config import Config

                config = Config(
                    connect_timeout=self._timeout_s,
                    read_timeout=self._timeout_s,
                    retries={"total_max_attempts": 1},  # retries, with backoff, are ours
                    max_pool_connections=max(self._concurrency, 10),
                )
                self._client = boto3.client(
                    "bedrock-runtime", region_name=self._region, config=config
                )
            return self._client


def clip(text: str) -> str:
    """``text`` cut to :data:`MAX_CHARS` characters, before its last space when it has one."""
    if len(text) <= MAX_CHARS:
        return text
    cut = text[:MAX_CHARS]
    space = cut.rfind(" ")
    return cut[:space] if space > MAX_CHARS // 2 else cut


def backoff(attempt: int) -> float:
    """Exponential backoff with full jitter: up to 0.25 s, 0.5 s, 1 s, 2 s, then 4 s."""
    return float(random.uniform(0, min(0.25 * 2**attempt, MAX_BACKOFF_S)))


def _failed(reason: str) -> ApiError:
    return ApiError(502, "embeddings.failed", f"The texts could not be embedded: {reason}.")
