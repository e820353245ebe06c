"""Builds the configured generator once per settings object."""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

from groundwork.settings import Settings, get_settings

if TYPE_CHECKING:
    from groundwork.generation.base import Generator


@lru_cache(maxsize=4)
def get_generator(settings: Settings | None = None) -> Generator:
    settings = settings or get_settings()
    match settings.generation:
        case "extractive":
            from groundwork.generation.extractive import ExtractiveComposer

            return ExtractiveComposer()
        case "openai":
            from groundwork.generation.openai_compatible import OpenAICompatibleGenerator

            key = settings.generation_api_key
            return OpenAICompatibleGenerator(
                settings.generation_base_url,
                settings.generation_model,
                api_key=key.get_secret_value() if key else None,
                timeout_s=settings.generation_timeout_s,
                retries=settings.generation_retries,
            )
        case "bedrock":
            from groundwork.generation.bedrock import BedrockGenerator

            return BedrockGenerator(
                settings.bedrock_model_id,
                region=settings.bedrock_region,
                timeout_s=settings.generation_timeout_s,
                retries=settings.generation_retries,
            )
        case "llama":
            from groundwork.generation.llama import LlamaGenerator

            return LlamaGenerator()
