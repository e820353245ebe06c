"""The generation port: a question and numbered passages in, text with ``[n]`` markers out."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from collections.abc import Iterator

    from groundwork.answer.relevance import Evidence
    from groundwork.domain.cards import Card


@dataclass(frozen=True)
class Turn:
    role: Literal["system", "user", "assistant"]
    content: str


@dataclass(frozen=True)
class GenerationRequest:
    """``passages[i]`` is source number ``i + 1``; markers in the output use those numbers.

    ``query`` is what retrieval searched with: the question, plus the previous question's
    words when the question is a short follow-up. The sampling fields are hints a model
    honours; the answer pipeline enforces ``max_tokens`` and ``stop`` on the text itself.
    ``evidence`` is the passages' sentences ranked against the question, when the pipeline has
    already gathered it.
    """

    question: str
    passages: list[Card]
    history: list[Turn] = field(default_factory=list)
    language: str | None = None
    query: str = ""
    temperature: float | None = None
    max_tokens: int | None = None
    stop: tuple[str, ...] = ()
    evidence: Evidence | None = None


class Generator(ABC):
    #: Every sentence it writes is a sentence of a passage, so the documents' answerability is
    #: its answer's; a generator that writes its own sentences has them checked as well.
    quotes_sources: bool = False

    @abstractmethod
    def stream(self, request: GenerationRequest) -> Iterator[str]:
        """Text deltas of the answer, in order; markers ``[n]`` cite ``request.passages[n-1]``.

        Implementations generate lazily: a consumer that stops iterating (and closes the
        iterator) stops the generation.
        """
