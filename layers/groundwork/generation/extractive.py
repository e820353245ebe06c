"""The extractive composer: the answer is the passages' own sentence that answers the question."""

from __future__ import annotations

from typing import TYPE_CHECKING

from groundwork.answer.confidence import answers, confidence
from groundwork.answer.relevance import gather
from groundwork.generation.base import GenerationRequest, Generator

if TYPE_CHECKING:
    from collections.abc import Iterator

    from groundwork.answer.relevance import Candidate, Evidence
    from groundwork.embeddings.base import Embedder

NOT_FOUND = "I could not find an answer to this question in the documents."

#: A further unit must score within this of the best one to be added (0.05 of the cosine
#: before the scores were fitted, whose weight on the cosine is now about 6).
FOLLOW_MARGIN = 0.3


def quoted(candidate: Candidate) -> str:
    """The candidate as the answer says it, with its passage's marker: a code block after the
    sentence that introduces it, keeping its line breaks; a unit of a rejected or deferred
    section, an alternative or an open issue as what the document does not adopt."""
    marker = f"[{candidate.passage + 1}]"
    if candidate.intro is not None:
        return f"{candidate.intro} {marker}\n\n{candidate.text}"
    if candidate.rejected is not None:
        return (
            f"The document lists this under “{candidate.rejected}”, not as what it adopts: "
            f"{candidate.text} {marker}"
        )
    return f"{candidate.text} {marker}"


class ExtractiveComposer(Generator):
    """Deterministic: every sentence it writes is a sentence of a source.

    The passages are read as units, the passage first and then the unit inside it
    (:mod:`groundwork.answer.relevance`). When the confidence that the best unit answers is
    below its threshold (:mod:`groundwork.answer.confidence`), it says the documents do not
    answer; otherwise it leads with the best unit and adds another only when it scores nearly as
    well and brings content words the answer lacks.
    Each sentence is followed by the marker of its passage.
    """

    quotes_sources = True

    def __init__(self, *, max_sentences: int = 2, embedder: Embedder | None = None) -> None:
        self._max_sentences = max_sentences
        self._embedder = embedder

    def stream(self, request: GenerationRequest) -> Iterator[str]:
        evidence = request.evidence or gather(
            request.query or request.question, request.passages, self._embedding()
        )
        if evidence.card_answer is not None:
            passage, sentence = evidence.card_answer
            yield f"{sentence} [{passage + 1}]"
            return
        chosen = self.select(evidence) if answers(confidence(evidence)) else []
        if not chosen:
            yield NOT_FOUND
            return
        for i, candidate in enumerate(chosen):
            code = candidate.intro is not None or (i > 0 and chosen[i - 1].intro is not None)
            yield ("" if i == 0 else "\n\n" if code else " ") + quoted(candidate)

    def _embedding(self) -> Embedder:
        if self._embedder is None:
            from groundwork.embeddings.factory import get_embedder

            self._embedder = get_embedder()
        return self._embedder

    def select(self, evidence: Evidence) -> list[Candidate]:
        """The sentences of the answer, best first, whatever the answerability."""
        best = evidence.best
        if best is None:
            return []
        chosen, said = [best], set(best.new_terms)
        for candidate in evidence.candidates[1:]:
            if len(chosen) == self._max_sentences or candidate.score < best.score - FOLLOW_MARGIN:
                break
            if candidate.new_terms <= said:
                continue
            chosen.append(candidate)
            said |= candidate.new_terms
        return chosen
