"""The storage port."""

from __future__ import annotations

from abc import ABC, abstractmethod

from pydantic import BaseModel, Field

from groundwork.domain.citations import Citation  # noqa: TC001 (pydantic needs it at run time)


class SourceRecord(BaseModel):
    """A document of a collection, as last ingested."""

    id: str
    collection: str
    title: str | None
    location: str
    content_hash: str
    cards: int


class AnswerRecord(BaseModel):
    """A question and the answer given to it, with the citations it carried."""

    id: str
    collection: str
    question: str
    text: str
    citations: list[Citation] = Field(default_factory=list)
    created: int


class Storage(ABC):
    """Durable state of the service."""

    @abstractmethod
    def put_source(self, source: SourceRecord) -> None:
        """Create or replace a source."""

    @abstractmethod
    def get_source(self, source_id: str) -> SourceRecord | None: ...

    @abstractmethod
    def delete_source(self, source_id: str) -> bool:
        """Remove a source; False when there was none."""

    @abstractmethod
    def list_sources(self, collection: str) -> list[SourceRecord]: ...

    @abstractmethod
    def put_answer(self, answer: AnswerRecord) -> None: ...

    @abstractmethod
    def get_answer(self, answer_id: str) -> AnswerRecord | None: ...
