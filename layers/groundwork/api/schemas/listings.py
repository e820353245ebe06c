"""What a user may list: the collections (with their sources) and the conversations."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field


class SourceSummary(BaseModel):
    id: str = Field(..., description="The `scope.source_id` that restricts a question to it.")
    title: str | None
    location: str = Field(..., description="Where it was ingested from: a path or a URL.")
    cards: int = Field(..., description="Passages it was cut into.")


class CollectionSummary(BaseModel):
    name: str = Field(..., description="What `collection` and `scope.collections` name.")
    title: str | None
    sources: list[SourceSummary] = Field(..., description="By title, then location.")


class CollectionList(BaseModel):
    object: Literal["list"] = "list"
    data: list[CollectionSummary]


class ConversationSummary(BaseModel):
    id: str
    title: str | None = Field(..., description="The first question asked in it.")
    created: int
    updated: int
    questions: int = Field(..., description="Questions asked, every version counted.")


class ConversationList(BaseModel):
    object: Literal["list"] = "list"
    data: list[ConversationSummary] = Field(..., description="Most recently updated first.")
    next_cursor: str | None = Field(
        ..., description="Send it as `cursor` for the next page; null on the last page."
    )
