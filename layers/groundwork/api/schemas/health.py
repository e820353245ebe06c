"""What ``GET /health`` answers."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field


class Indexing(BaseModel):
    collection: str = Field(..., description="The collection the docs go into.")
    documents: int = Field(..., description="The docs to index.")
    done: int = Field(..., description="How many of them are in so far.")


class Health(BaseModel):
    status: Literal["ok"] = "ok"
    version: str
    indexing: Indexing | None = Field(
        None,
        description="Only while `groundwork serve` indexes its docs beside the service (its "
        "first start): answers come from what is in so far.",
    )
