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
