"""Any OpenAI-compatible chat endpoint (vLLM, Ollama, OpenAI) over HTTP, streamed (SSE)."""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING, Any

from groundwork.errors import ApiError
from groundwork.generation.base import GenerationRequest, Generator
from groundwork.generation.prompt import chat_messages

if TYPE_CHECKING:
    from collections.abc import Iterator

    import httpx

# Statuses worth another try: the endpoint is busy or restarting, not refusing the request.
_RETRYABLE = frozenset({408, 409, 429, 500, 502, 503, 504})


class OpenAICompatibleGenerator(Generator):
    """Streams ``POST {base_url}/chat/completions``; the sources are numbered in the prompt.

    Failures before the first token are retried with exponential backoff; once text has
    been sent, a failure ends the answer. Timeouts are ``504 generation.timeout``, every
    other failure ``502 generation.failed``.
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str | None = None,
        timeout_s: float = 30.0,
        retries: int = 2,
        backoff_s: float = 0.5,
    ) -> None:
        import httpx

        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx.Client(
            base_url=base_url.rstrip("/") + "/", headers=headers, timeout=timeout_s
        )
        self._model = model
        self._retries = retries
        self._backoff_s = backoff_s

    def stream(self, request: GenerationRequest) -> Iterator[str]:
        import httpx

        payload: dict[str, Any] = {
            "model": self._model,
            "messages": chat_messages(request),
            "stream": True,
        }
        if request.temperature is not None:
            payload["temperature"] = request.temperature
        if request.max_tokens is not None:
            payload["max_tokens"] = request.max_tokens
        if request.stop:
            payload["stop"] = list(request.stop)
        response = self._open(payload)
        try:
            if response.headers.get("content-type", "").startswith("application/json"):
                yield from _whole(response)  # a server that ignores "stream"
            else:
                yield from _events(response)
        except httpx.TimeoutException as error:
            raise _timeout() from error
        except httpx.HTTPError as error:
            raise _failed(f"the connection to the model broke ({error})") from error
        finally:
            response.close()

    def _open(self, payload: dict[str, Any]) -> httpx.Response:
        import httpx

        for attempt in range(self._retries + 1):
            last = attempt == self._retries
            try:
                response = self._client.send(
                    self._client.build_request("POST", "chat/completions", json=payload),
                    stream=True,
                )
            except httpx.TimeoutException as error:
                if last:
                    raise _timeout() from error
            except httpx.HTTPError as error:
                if last:
                    raise _failed(f"the model endpoint is unreachable ({error})") from error
            else:
                if not response.is_error:
                    return response
                response.read()
                response.close()
                if last or response.status_code not in _RETRYABLE:
                    raise _failed(
                        f"the model endpoint answered {response.status_code}: "
                        f"{_error_message(response)}"
                    )
            time.sleep(self._backoff_s * 2**attempt)
        raise AssertionError("the last attempt returns or raises")


def _events(response: httpx.Response) -> Iterator[str]:
    for line in response.iter_lines():
        if not line.startswith("data:"):
            continue  # blank separators, comments, "event:" names
        data = line[len("data:") :].strip()
        if data == "[DONE]":
            return
        try:
            chunk = json.loads(data)
        except ValueError as error:
            raise _failed("the model endpoint sent a chunk that is not JSON") from error
        if chunk.get("error"):
            raise _failed(f"the model failed mid-answer: {_message(chunk['error'])}")
        for choice in chunk.get("choices") or []:
            content = (choice.get("delta") or {}).get("content")
            if content:
                yield content


def _whole(response: httpx.Response) -> Iterator[str]:
    body = json.loads(response.read())
    for choice in body.get("choices") or []:
        content = (choice.get("message") or {}).get("content")
        if content:
            yield content


def _error_message(response: httpx.Response) -> str:
    try:
        return _message(response.json().get("error"))
    except (ValueError, AttributeError):
        return response.text[:200] or response.reason_phrase


def _message(error: Any) -> str:
    return str(error.get("message") if isinstance(error, dict) else error)[:200]


def _timeout() -> ApiError:
    return ApiError(504, "generation.timeout", "The model did not answer in time.")


def _failed(reason: str) -> ApiError:
    return ApiError(502, "generation.failed", f"The answer could not be generated: {reason}.")
