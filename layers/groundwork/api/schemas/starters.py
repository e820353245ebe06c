"""Suggested questions: ``GET /v1/starters``."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field


class Starter(BaseModel):
    id: str
    text: str
    language: str | None = Field(
        ..., description="ISO 639-1 code; send it as `language` when asking the starter."
    )
    collection: str
    source_id: str | None = Field(None, description="Set when the starter is about one source.")


class StarterList(BaseModel):
    object: Literal["list"] = "list"
    data: list[Starter] = Field(..., description="An admin's first, then proposals.")
