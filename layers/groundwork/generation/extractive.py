"""The extractive composer: the answer is made of the passages' own most relevant sentences."""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING

from groundwork.generation.base import GenerationRequest, Generator
from groundwork.text.sentences import split_sentences
from groundwork.text.terms import terms

if TYPE_CHECKING:
    from collections.abc import Iterator

_FENCED = re.compile(r"^(```|~~~).*?^\1[^\n]*$", re.DOTALL | re.MULTILINE)

NOT_FOUND = "I could not find an answer to this question in the documents."


@dataclass(frozen=True)
class _Candidate:
    passage: int  # zero-based rank of the passage in the request
    position: int  # sentence number inside the passage
    text: str
    score: float


class ExtractiveComposer(Generator):
    """Deterministic and model-free: every sentence it writes is a sentence of a source.

    Sentences are scored by the inverse-document-frequency weight of the question's terms
    they contain (over the sentences of the retrieved passages), with a small bonus for
    better-ranked passages; the best few are written in passage order, each followed by the
    marker of its passage.
    """

    def __init__(self, *, max_sentences: int = 3, per_passage: int = 2) -> None:
        self._max_sentences = max_sentences
        self._per_passage = per_passage

    def stream(self, request: GenerationRequest) -> Iterator[str]:
        chosen = self._select(request)
        if not chosen:
            yield NOT_FOUND
            return
        for i, candidate in enumerate(chosen):
            yield ("" if i == 0 else " ") + f"{candidate.text} [{candidate.passage + 1}]"

    def _select(self, request: GenerationRequest) -> list[_Candidate]:
        wanted = set(terms(request.query or request.question))
        if not wanted:
            return []
        sentences = [
            (p, s, text, set(terms(text)))
            for p, card in enumerate(request.passages)
            for s, text in enumerate(_prose(card.text))
        ]
        frequency = Counter(t for *_, found in sentences for t in found & wanted)
        total = len(sentences)
        scored = []
        for p, s, text, found in sentences:
            matched = found & wanted
            if not matched:
                continue
            weight = sum(math.log(1 + total / frequency[t]) for t in matched)
            coverage = weight / sum(math.log(1 + total / max(frequency[t], 1)) for t in wanted)
            scored.append(_Candidate(p, s, text, coverage / (1 + 0.1 * p)))
        scored.sort(key=lambda c: (-c.score, c.passage, c.position))
        if not scored:
            return []
        floor = scored[0].score * 0.5
        chosen: list[_Candidate] = []
        per_passage: Counter[int] = Counter()
        for candidate in scored:
            if candidate.score < floor or len(chosen) == self._max_sentences:
                break
            if per_passage[candidate.passage] < self._per_passage:
                chosen.append(candidate)
                per_passage[candidate.passage] += 1
        return sorted(chosen, key=lambda c: (c.passage, c.position))


def _prose(text: str) -> list[str]:
    """The passage's sentences on one line each; code blocks and fragments are not prose.

    A sentence ending in a colon only introduces what follows it (a list, a command): alone it
    says nothing, and it would run into the next sentence of the answer.
    """
    prose = _FENCED.sub("\n\n", text)
    sentences = (" ".join(span.text.split()) for span in split_sentences(prose))
    return [s for s in sentences if len(s.split()) >= 3 and not s.endswith(":")]
