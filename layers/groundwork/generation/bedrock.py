"""Amazon Bedrock through the Converse stream API (boto3, from the ``aws`` extra)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from groundwork.errors import ApiError
from groundwork.generation.base import GenerationRequest, Generator
from groundwork.generation.prompt import chat_messages

if TYPE_CHECKING:
    from collections.abc import Iterator

# Error events a ConverseStream response can carry instead of text.
_STREAM_ERRORS = (
    "internalServerException",
    "modelStreamErrorException",
    "validationException",
    "throttlingException",
    "serviceUnavailableException",
)


class BedrockGenerator(Generator):
    """Streams ``ConverseStream``; botocore retries throttling and 5xx with backoff.

    Timeouts are ``504 generation.timeout``; every other failure, including credentials and
    model access, is ``502 generation.failed`` with Bedrock's error code in the message.
    """

    def __init__(
        self,
        model_id: str,
        *,
        region: str | None = None,
        timeout_s: float = 30.0,
        retries: int = 2,
        client: Any = None,
    ) -> None:
        self._model_id = model_id
        if client is None:
            import boto3
            from botocore.config import Config

            config = Config(
                connect_timeout=timeout_s,
                read_timeout=timeout_s,
                retries={"max_attempts": retries + 1, "mode": "standard"},
            )
            client = boto3.client("bedrock-runtime", region_name=region, config=config)
        self._client = client

    def stream(self, request: GenerationRequest) -> Iterator[str]:
        from botocore.exceptions import (
            BotoCoreError,
            ClientError,
            ConnectTimeoutError,
            ReadTimeoutError,
        )

        messages = chat_messages(request)
        arguments: dict[str, Any] = {
            "modelId": self._model_id,
            "system": [{"text": messages[0]["content"]}],
            "messages": _alternating(messages[1:]),
        }
        inference: dict[str, Any] = {}
        if request.max_tokens is not None:
            inference["maxTokens"] = request.max_tokens
        if request.temperature is not None:
            inference["temperature"] = min(request.temperature, 1.0)  # Bedrock's range is 0–1
        if request.stop:
            inference["stopSequences"] = list(request.stop)
        if inference:
            arguments["inferenceConfig"] = inference
        try:
            response = self._client.converse_stream(**arguments)
            for event in response["stream"]:
                for name in _STREAM_ERRORS:
                    if name in event:
                        message = event[name].get("message", "")
                        raise _failed(f"Bedrock {name}: {message}".rstrip(": "))
                text = event.get("contentBlockDelta", {}).get("delta", {}).get("text")
                if text:
                    yield text
        except (ConnectTimeoutError, ReadTimeoutError) as error:
            raise ApiError(
                504, "generation.timeout", "The model did not answer in time."
            ) from error
        except ClientError as error:
            details = error.response.get("Error", {})
            code, message = details.get("Code", "error"), details.get("Message", "")
            raise _failed(f"Bedrock {code}: {message}".rstrip(": ")) from error
        except BotoCoreError as error:
            raise _failed(f"Bedrock is unreachable ({error})") from error


def _alternating(messages: list[dict[str, str]]) -> list[dict[str, Any]]:
    """Converse wants user and assistant turns alternating, starting with the user:
    consecutive turns of one role are merged and a leading assistant turn is dropped."""
    turns: list[dict[str, Any]] = []
    for message in messages:
        if not turns and message["role"] != "user":
            continue
        if turns and turns[-1]["role"] == message["role"]:
            turns[-1]["content"][0]["text"] += "\n\n" + message["content"]
        else:
            turns.append({"role": message["role"], "content": [{"text": message["content"]}]})
    return turns


def _failed(reason: str) -> ApiError:
    return ApiError(502, "generation.failed", f"The answer could not be generated: {reason}.")
