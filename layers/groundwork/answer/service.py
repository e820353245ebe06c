"""Answers a conversation's last question from a collection, with citations."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from groundwork.answer.citations import assemble
from groundwork.errors import ApiError
from groundwork.generation.base import GenerationRequest, Turn
from groundwork.retrieval.base import SearchFilter

if TYPE_CHECKING:
    from groundwork.domain.citations import Citation
    from groundwork.generation.base import Generator
    from groundwork.retrieval.base import Retriever


@dataclass(frozen=True)
class Answer:
    text: str
    citations: list[Citation]


class AnswerService:
    def __init__(self, retriever: Retriever, generator: Generator, *, k: int) -> None:
        self._retriever = retriever
        self._generator = generator
        self._k = k

    def answer(self, turns: list[Turn], collection: str) -> Answer:
        question = last_question(turns)
        hits = self._retriever.search(question, SearchFilter(collections=[collection]), self._k)
        passages = [hit.card for hit in hits]
        request = GenerationRequest(question=question, passages=passages, history=turns[:-1])
        text = "".join(self._generator.stream(request))
        text, citations = assemble(text, passages)
        return Answer(text=text, citations=citations)


def last_question(turns: list[Turn]) -> str:
    if not turns or turns[-1].role != "user" or not turns[-1].content.strip():
        raise ApiError(
            400,
            "messages.no_question",
            "The last message must be a non-empty user message: it is the question answered.",
            param="messages",
        )
    return turns[-1].content
