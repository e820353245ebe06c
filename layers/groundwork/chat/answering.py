"""The chat service's one coupling to the answer pipeline.

The pipeline searches one collection with the request's tags; a chat question is scoped by a
resolved filter (several collections, a source, cards, a period). The retriever handed to the
pipeline therefore searches with that filter, whatever filter the pipeline builds.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from groundwork.answer.service import AnswerOptions, AnswerService, Delta, Finish
from groundwork.generation.base import Turn
from groundwork.retrieval.base import Retriever

if TYPE_CHECKING:
    from collections.abc import Generator, Sequence

    from groundwork.chat.request import Quality
    from groundwork.domain.cards import Card, Hit
    from groundwork.generation.base import Generator as TextGenerator
    from groundwork.retrieval.base import Quality as SearchQuality
    from groundwork.retrieval.base import SearchFilter

__all__ = ["Answerer", "Delta", "Finish"]


@dataclass(frozen=True)
class Answerer:
    retriever: Retriever
    generator: TextGenerator
    k: int

    def stream(
        self,
        question: str,
        history: Sequence[tuple[str, str]],
        where: SearchFilter,
        *,
        language: str | None,
        quality: Quality,
    ) -> Generator[Delta | Finish, None, None]:
        """Deltas of the answer, then one ``Finish``; closing it stops the generation."""
        turns = [
            turn
            for asked, answered in history
            for turn in (Turn("user", asked), Turn("assistant", answered))
        ]
        turns.append(Turn("user", question))
        service = AnswerService(_Scoped(self.retriever, where), self.generator, k=self.k)
        options = AnswerOptions(tags=where.tags, language=language, quality=quality)
        return service.stream(turns, where.collections[0], options)


class _Scoped(Retriever):
    """Searches with the resolved filter; everything else goes to the real index."""

    def __init__(self, inner: Retriever, where: SearchFilter) -> None:
        self._inner = inner
        self._where = where

    def upsert(self, cards: Sequence[Card]) -> None:
        self._inner.upsert(cards)

    def delete_source(self, source_id: str) -> int:
        return self._inner.delete_source(source_id)

    def search(
        self, query: str, where: SearchFilter, k: int, *, quality: SearchQuality = "precise"
    ) -> list[Hit]:
        return self._inner.search(query, self._where, k, quality=quality)

    def count(self, collection: str | None = None) -> int:
        return self._inner.count(collection)
