"""Answers a conversation's last question from a collection, with verified citations.

question → retrieval → the passages' sentences ranked against the question, and whether they
answer it → generation with numbered sources → citation assembly and verification → the
request's limits. :meth:`AnswerService.stream` is lazy: nothing is
generated beyond what its consumer pulls, and closing it stops the generator.
"""

from __future__ import annotations

import re
from collections.abc import Generator as PyGenerator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from groundwork.answer.answerability import probability
from groundwork.answer.citations import CitationStream
from groundwork.answer.confidence import RefusalReason, confidence, refusal_reason
from groundwork.answer.language import written_language
from groundwork.answer.limits import OutputLimit
from groundwork.answer.passages import answer_passages
from groundwork.answer.question import last_question, search_query
from groundwork.answer.relevance import gather
from groundwork.answer.verification import GroundedVerifier
from groundwork.domain.cards import Card
from groundwork.generation.base import GenerationRequest
from groundwork.grounding.factory import get_verifier
from groundwork.retrieval.sentence_vectors import known
from groundwork.text.tokens import count_tokens

_MARKERS = re.compile(r"\s*\[\d{1,3}\]")

if TYPE_CHECKING:
    from collections.abc import Sequence

    from groundwork.answer.verification import CitationVerifier
    from groundwork.domain.citations import Citation, GroundingSupport
    from groundwork.embeddings.base import Embedder
    from groundwork.generation.base import Generator, Turn
    from groundwork.retrieval.base import Retriever, SearchFilter


@dataclass(frozen=True)
class AnswerOptions:
    """What a request may set besides the conversation; ``quality`` is the search's."""

    language: str | None = None
    quality: Literal["fast", "precise"] = "precise"
    temperature: float | None = None
    max_tokens: int | None = None
    stop: tuple[str, ...] = ()
    #: False for a question that replaces an earlier one (an edit): it is no follow-up.
    follow_up: bool = True


@dataclass(frozen=True)
class Delta:
    text: str


@dataclass(frozen=True)
class Finish:
    """The end of an answer: everything that is only known once the text is complete."""

    finish_reason: Literal["stop", "length"]
    citations: list[Citation]
    support_score: float | None
    completion_tokens: int
    #: The language the text is written in (``answer.language``), whatever was asked.
    language: str | None = None
    answerability: float = 0.0
    #: How likely the answer answers the question (:mod:`groundwork.answer.confidence`).
    confidence: float = 0.0
    #: Why the answer cites nothing, when it does not (a refusal).
    refusal_reason: RefusalReason | None = None
    #: The cited sentences of the text as delivered, with their citations (UTF-8 offsets).
    grounding_supports: list[GroundingSupport] = field(default_factory=list)


@dataclass(frozen=True)
class Answer:
    text: str
    citations: list[Citation]
    support_score: float | None = None
    finish_reason: Literal["stop", "length"] = "stop"
    completion_tokens: int = 0
    language: str | None = None
    answerability: float = 0.0
    confidence: float = 0.0
    refusal_reason: RefusalReason | None = None
    grounding_supports: list[GroundingSupport] = field(default_factory=list)


class AnswerService:
    def __init__(
        self,
        retriever: Retriever,
        generator: Generator,
        *,
        k: int,
        verifier: CitationVerifier | None = None,
        embedder: Embedder | None = None,
    ) -> None:
        self._retriever = retriever
        self._generator = generator
        self._k = k
        self._verifier = verifier or GroundedVerifier(get_verifier())
        self._embedder = embedder

    def answer(
        self, turns: Sequence[Turn], where: SearchFilter, options: AnswerOptions | None = None
    ) -> Answer:
        text = ""
        for event in self.stream(turns, where, options):
            if isinstance(event, Delta):
                text += event.text
            else:
                return Answer(
                    text=text,
                    citations=event.citations,
                    support_score=event.support_score,
                    finish_reason=event.finish_reason,
                    completion_tokens=event.completion_tokens,
                    language=event.language,
                    answerability=event.answerability,
                    confidence=event.confidence,
                    refusal_reason=event.refusal_reason,
                    grounding_supports=event.grounding_supports,
                )
        raise AssertionError("an answer stream always ends with Finish")

    def stream(
        self, turns: Sequence[Turn], where: SearchFilter, options: AnswerOptions | None = None
    ) -> PyGenerator[Delta | Finish, None, None]:
        """Answer from the cards ``where`` allows (a resolved scope: see ``chat.scope``)."""
        options = options or AnswerOptions()
        question = last_question(turns)
        query = search_query(turns) if options.follow_up else question
        hits = answer_passages(
            self._retriever,
            query,
            where,
            self._k,
            quality=options.quality,
            language=options.language,
        )
        passages = [hit.card for hit in hits]
        embedder = self._embedding()
        evidence = gather(
            query, passages, embedder, [hit.score for hit in hits], known(hits, embedder.dimension)
        )
        request = GenerationRequest(
            question=question,
            passages=passages,
            history=list(turns[:-1]),
            language=options.language,
            query=query,
            temperature=options.temperature,
            max_tokens=options.max_tokens,
            stop=options.stop,
            evidence=evidence,
        )
        cited = CitationStream(passages, self._verifier)
        limit = OutputLimit(options.stop, options.max_tokens)
        sent = ""
        deltas = self._generator.stream(request)
        try:
            for delta in deltas:
                text = limit.feed(cited.feed(delta))
                if text:
                    sent += text
                    yield Delta(text)
                if limit.finish_reason is not None:
                    break
            else:
                text = limit.feed(cited.close()) + limit.flush()
                if text:
                    sent += text
                    yield Delta(text)
        finally:
            if isinstance(deltas, PyGenerator):
                deltas.close()
        citations = _cited_in(sent, cited.citations)
        answerability = probability(evidence)
        sure = confidence(evidence)
        if not self._generator.quotes_sources and sent.strip():
            # A model's own sentences must address the question too, whatever the documents.
            spoken = probability(gather(query, [_as_card(sent)], embedder))
            answerability = min(answerability, spoken)
            sure = min(sure, spoken)
        reason: RefusalReason | None = None
        if not citations:
            grounded = self._generator.quotes_sources or not cited.cited_sentences
            reason = refusal_reason(evidence) if grounded else "answer_not_grounded"
        yield Finish(
            finish_reason=limit.finish_reason or "stop",
            citations=citations,
            support_score=cited.support_score,
            completion_tokens=count_tokens(sent),
            language=written_language(sent, _cited_cards(passages, citations)),
            answerability=answerability,
            confidence=sure,
            refusal_reason=reason,
            grounding_supports=cited.grounding_supports(sent),
        )

    def _embedding(self) -> Embedder:
        if self._embedder is None:
            from groundwork.embeddings.factory import get_embedder

            self._embedder = get_embedder()
        return self._embedder


def _as_card(answer: str) -> Card:
    """The answer as a passage of its own, markers removed, for the answerability check."""
    text = _MARKERS.sub("", answer)
    return Card(id="answer", collection="", source_id="", text=text, url="")


def _cited_in(text: str, citations: list[Citation]) -> list[Citation]:
    """The citations whose marker made it into ``text``: all of them unless it was cut short,
    and, numbering being by first appearance, always the first few."""
    return [c for c in citations if f"[{c.document_index + 1}]" in text]


def _cited_cards(passages: list[Card], citations: list[Citation]) -> list[Card]:
    cited = {(c.source_url, c.cited_text) for c in citations}
    return [card for card in passages if (card.url, card.text) in cited]
