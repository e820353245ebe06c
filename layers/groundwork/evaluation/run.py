"""Asks an evaluation's questions of a collection, as the API answers them, and judges each."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from groundwork.answer.citations import CitationStream
from groundwork.answer.service import AnswerOptions, AnswerService, Delta
from groundwork.answer.units import word_count
from groundwork.answer.verification import GroundedVerifier
from groundwork.chat.language import answer_language
from groundwork.evaluation.judge import (
    first_sentence,
    holds_answer,
    same_source,
    under_section,
    without_markers,
)
from groundwork.generation.base import Turn
from groundwork.retrieval.base import Retriever, SearchFilter

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from groundwork.domain.cards import Card, Hit
    from groundwork.domain.citations import Citation
    from groundwork.evaluation.questions import EvalQuestion
    from groundwork.generation.base import Generator
    from groundwork.grounding.base import Verifier
    from groundwork.retrieval.base import Quality
    from groundwork.storage.base import Storage


@dataclass(frozen=True)
class Outcome:
    """One question asked: what came back and how it fared."""

    question: EvalQuestion
    answer: str
    #: The answer cites nothing: it says the documents do not answer.
    refused: bool
    #: How likely the answer answers, as the service reports it (``answerability``).
    confidence: float
    first_sentence: str
    #: The first sentence holds an expected fragment; None where none is expected.
    answers: bool | None
    #: The first citation is an expected source (and section); None where none is expected.
    source_first: bool | None
    #: Each citation's document, as ingested (its path), in the answer's order.
    cited: tuple[str, ...]
    cited_sentences: int
    supported_sentences: int
    words: int
    first_token_s: float
    support_score: float | None = None

    @property
    def correct(self) -> bool | None:
        """Answered right: an answerable question's first sentence answers (or, with no
        fragment expected, its first citation is the expected source); never for a question
        the documents do not answer. None where nothing tells."""
        if not self.question.answerable:
            return False
        if self.refused:
            return False
        return self.answers if self.answers is not None else self.source_first


@dataclass
class Remembering(Retriever):
    """A retriever that keeps the cards of its last search: what the answer could cite."""

    inner: Retriever
    last: list[Card] = field(default_factory=list)

    def upsert(self, cards: Sequence[Card]) -> None:
        self.inner.upsert(cards)

    def delete_source(self, source_id: str) -> int:
        return self.inner.delete_source(source_id)

    def replace_source(
        self,
        source_id: str,
        cards: Sequence[Card],
        *,
        progress: Callable[[int], object] | None = None,
    ) -> None:
        self.inner.replace_source(source_id, cards, progress=progress)

    def search(
        self,
        query: str,
        where: SearchFilter,
        k: int,
        *,
        quality: Quality = "precise",
        lexical: bool = True,
    ) -> list[Hit]:
        hits = self.inner.search(query, where, k, quality=quality, lexical=lexical)
        self.last = [hit.card for hit in hits]
        return hits

    def count(self, collection: str | None = None) -> int:
        return self.inner.count(collection)

    def source_counts(self, where: SearchFilter) -> dict[str, int]:
        return self.inner.source_counts(where)

    def source_cards(self, collection: str) -> dict[str, int]:
        return self.inner.source_cards(collection)


class Evaluation:
    """Asks questions of one collection through :class:`AnswerService` and judges them."""

    def __init__(
        self,
        retriever: Retriever,
        storage: Storage,
        generator: Generator,
        verifier: Verifier,
        *,
        collection: str,
        k: int,
        quality: Quality = "precise",
    ) -> None:
        self._retriever = Remembering(retriever)
        self._storage = storage
        self._verifier = verifier
        self._service = AnswerService(
            self._retriever, generator, k=k, verifier=GroundedVerifier(verifier)
        )
        self._where = SearchFilter(collections=[collection])
        self._quality = quality
        self._locations: dict[str, str] = {}

    def ask(self, question: EvalQuestion) -> Outcome:
        # As the routes ask: in the question's own language (``chat.language``).
        language = answer_language(None, question.question)
        options = AnswerOptions(quality=self._quality, language=language)
        started = time.perf_counter()
        first: float | None = None
        text = ""
        for event in self._service.stream([Turn("user", question.question)], self._where, options):
            if isinstance(event, Delta):
                first = first if first is not None else time.perf_counter() - started
                text += event.text
                continue
            cards = self._cited_cards(event.citations)
            checked, supported = self._recheck(text, cards)
            opening = first_sentence(text)
            refused = not event.citations
            return Outcome(
                question=question,
                answer=text,
                refused=refused,
                confidence=event.confidence,
                first_sentence=opening,
                answers=(
                    not refused and holds_answer(opening, question.answers)
                    if question.answerable and question.answers
                    else None
                ),
                source_first=(
                    bool(cards) and self._names(cards[0], question)
                    if question.answerable and question.source
                    else None
                ),
                cited=tuple(self._location(card) for card in cards),
                cited_sentences=checked,
                supported_sentences=supported,
                words=word_count(without_markers(text)) if not refused else 0,
                first_token_s=first if first is not None else time.perf_counter() - started,
                support_score=event.support_score,
            )
        raise AssertionError("an answer stream always ends with Finish")

    def _cited_cards(self, citations: list[Citation]) -> list[Card]:
        """The passages behind the citations, in their order."""
        passages = {(card.url, card.text): card for card in self._retriever.last}
        return [
            passages[(c.source_url, c.cited_text)]
            for c in citations
            if (c.source_url, c.cited_text) in passages
        ]

    def _recheck(self, answer: str, cards: list[Card]) -> tuple[int, int]:
        """The delivered answer's cited sentences, and how many their passage supports."""
        stream = CitationStream(cards, GroundedVerifier(self._verifier))
        stream.feed(answer)
        stream.close()
        return stream.cited_sentences, stream.supported_sentences

    def _location(self, card: Card) -> str:
        if card.source_id not in self._locations:
            source = self._storage.get_source(card.source_id)
            self._locations[card.source_id] = source.location if source else card.url
        return self._locations[card.source_id]

    def _names(self, card: Card, question: EvalQuestion) -> bool:
        location = self._location(card)
        if not any(same_source(location, card.url, card.title, s) for s in question.source):
            return False
        if question.section is None:
            return True
        return under_section([card.title or "", *card.heading_path], question.section)
