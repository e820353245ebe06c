"""The chat service's one coupling to the answer pipeline: a question in its resolved scope."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from groundwork.answer.service import AnswerOptions, AnswerService, Delta, Finish
from groundwork.generation.base import Turn

if TYPE_CHECKING:
    from collections.abc import Generator, Sequence

    from groundwork.answer.verification import CitationVerifier
    from groundwork.chat.request import Quality
    from groundwork.generation.base import Generator as TextGenerator
    from groundwork.retrieval.base import Retriever, SearchFilter

__all__ = ["Answerer", "Delta", "Finish"]


@dataclass(frozen=True)
class Answerer:
    retriever: Retriever
    generator: TextGenerator
    k: int
    verifier: CitationVerifier | None = None  # None: the grounding engine of the settings

    def stream(
        self,
        question: str,
        history: Sequence[tuple[str, str]],
        where: SearchFilter,
        *,
        language: str | None,
        quality: Quality,
        follow_up: bool = True,
    ) -> Generator[Delta | Finish, None, None]:
        """Deltas of the answer, then one ``Finish``; closing it stops the generation."""
        turns = [
            turn
            for asked, answered in history
            for turn in (Turn("user", asked), Turn("assistant", answered))
        ]
        turns.append(Turn("user", question))
        service = AnswerService(self.retriever, self.generator, k=self.k, verifier=self.verifier)
        return service.stream(
            turns, where, AnswerOptions(language=language, quality=quality, follow_up=follow_up)
        )
