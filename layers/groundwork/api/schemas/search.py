"""``POST /v1/search``: retrieval on its own, each result carrying the citation fields."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class SearchScope(BaseModel):
    """The perimeter of a search: its collections replace ``collection``, its tags add up."""

    model_config = ConfigDict(extra="forbid")

    collections: list[str] = Field(default_factory=list, max_length=20)
    tags: list[str] = Field(default_factory=list, max_length=50)


class SearchRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    query: str = Field(..., min_length=1, max_length=2000)
    collection: str | None = Field(None, min_length=1, max_length=128)
    scope: SearchScope | None = None
    tags: list[str] | None = Field(None, max_length=50)
    k: int = Field(10, ge=1, le=50, description="How many results, at most.")
    quality: Literal["fast", "precise"] = "precise"


class SearchResult(BaseModel):
    card_id: str
    score: float
    cited_text: str
    cited_text_heading: str | None
    document_title: str | None
    document_author: str | None
    document_year: str | None
    document_reference: str | None
    source_url: str


class SearchResponse(BaseModel):
    results: list[SearchResult]
