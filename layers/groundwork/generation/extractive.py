"""The extractive composer: the answer is the passages' own sentence that answers the question."""

from __future__ import annotations

from typing import TYPE_CHECKING

from groundwork.answer.answerability import answers, probability
from groundwork.answer.relevance import gather
from groundwork.generation.base import GenerationRequest, Generator

if TYPE_CHECKING:
    from collections.abc import Iterator

    from groundwork.answer.relevance import Candidate, Evidence
    from groundwork.embeddings.base import Embedder

NOT_FOUND = "I could not find an answer to this question in the documents."

#: A further sentence must score within this of the best one to be added.
FOLLOW_MARGIN = 0.05


class ExtractiveComposer(Generator):
    """Deterministic: every sentence it writes is a sentence of a source.

    The candidate sentences are ranked by meaning, keywords, passage rank and whether they hold
    the kind of answer the question asks for (:mod:`groundwork.answer.relevance`). When the
    answerability check says the passages do not answer the question, it says so; otherwise it
    leads with the best sentence and adds another only when it scores nearly as well and brings
    content words the answer lacks.
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
        chosen = self.select(evidence) if answers(probability(evidence)) else []
        if not chosen:
            yield NOT_FOUND
            return
        after_code = False
        for i, candidate in enumerate(chosen):
            # A code block answering a how-to question follows its sentence and its marker.
            sentence, _, code = candidate.text.partition("\n\n")
            marked = f"{sentence} [{candidate.passage + 1}]" + (f"\n\n{code}" if code else "")
            gap = "" if i == 0 else ("\n\n" if code or after_code else " ")
            yield gap + marked
            after_code = bool(code)

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
