"""Proposes a source's starters at ingest: candidates from the document, each kept only when
the answer pipeline answers it with a citation from the collection (and passes every other
check given), a few per source, spread over the document.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from groundwork.answer.service import AnswerOptions
from groundwork.generation.base import Turn
from groundwork.ingest.document import passage_tags
from groundwork.retrieval.base import SearchFilter
from groundwork.starters.candidates import candidates, document_language, is_boilerplate
from groundwork.storage.starters import StarterRecord, proposal_id
from groundwork.text.terms import terms

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from groundwork.answer.service import Answer, AnswerService
    from groundwork.ingest.document import Document
    from groundwork.starters.candidates import Candidate
    from groundwork.storage.starters import StarterStore

    #: A further condition on a proposal: the question and the answer the pipeline gave it.
    AnswerCheck = Callable[[str, Answer], bool]

#: Candidates tried per starter kept: a few may fail, trying all of a catechism's would not
#: keep ingest fast.
TRIES_PER_STARTER = 3
#: Two proposals sharing more than this share of their content words are one question twice.
_OVERLAP = 0.5
#: The least confidence of a starter's answer: about three times the refusal threshold
#: (``answer.confidence.THRESHOLD``). One proposed at 0.21 on The Federalist fell to 0.10, a
#: refusal, once two more collections were ingested.
STARTER_CONFIDENCE = 0.3


def cited(_: str, answer: Answer) -> bool:
    """The answer cites the collection, and none of what it cites is boilerplate."""
    return bool(answer.citations) and not any(
        is_boilerplate(c.cited_text) for c in answer.citations
    )


def clearly_answered(_: str, answer: Answer) -> bool:
    """The answer's confidence is well above what an answer needs: a starter is offered as a
    question the documents answer, and must stay answered while the collection grows (other
    documents ingested move the keyword statistics, and the scores with them)."""
    return answer.confidence >= STARTER_CONFIDENCE


def answerable(_: str, answer: Answer) -> bool:
    """The answer pipeline's own answerability check says the documents answer it."""
    from groundwork.answer.answerability import answers

    return answers(answer.answerability)


@dataclass
class StarterProposer:
    answers: AnswerService
    store: StarterStore
    per_source: int = 3
    #: Every check must pass; ``cited`` and ``clearly_answered`` always run first.
    #: ``starters.factory`` adds the answer pipeline's answerability check (``answerable``).
    checks: Sequence[AnswerCheck] = field(default_factory=tuple)

    def propose(
        self, document: Document, collection: str, source_id: str, *, tags: Sequence[str] = ()
    ) -> list[StarterRecord]:
        """Replace the source's proposals with new ones; returns those kept. ``tags`` are
        those ingest gives every card of the source."""
        language = document_language(document)
        kept: list[Candidate] = []
        for candidate in _spread(candidates(document, language), self.per_source):
            if len(kept) == self.per_source:
                break
            if not _similar(candidate, kept) and self._answered(candidate, collection):
                kept.append(candidate)
        starters = [
            StarterRecord(
                id=proposal_id(collection, source_id, candidate.text),
                collection=collection,
                text=candidate.text,
                language=candidate.language,
                source_id=source_id,
                tags=_drawn_from_tags(document, candidate, tags),
                origin="proposed",
                rank=rank,
            )
            for rank, candidate in enumerate(kept)
        ]
        self.store.replace_proposals(collection, source_id, starters)
        return starters

    def forget(self, collection: str, source_id: str) -> None:
        """The source was deleted: so are its proposals."""
        self.store.replace_proposals(collection, source_id, [])

    def _answered(self, candidate: Candidate, collection: str) -> bool:
        answer = self.answers.answer(
            [Turn("user", candidate.text)],
            SearchFilter(collections=[collection]),
            AnswerOptions(language=candidate.language),
        )
        checks = (cited, clearly_answered, *self.checks)
        return all(check(candidate.text, answer) for check in checks)


def _drawn_from_tags(document: Document, candidate: Candidate, extra: Sequence[str]) -> list[str]:
    """The tags every card the candidate was drawn from has: its passage's, or for a heading,
    those of every passage under that heading (its question may use any of their words)."""
    passages = document.passages
    origin = passages[candidate.position]
    drawn = [origin]
    if candidate.kind == "heading":
        drawn = [p for p in passages if p.heading_path == origin.heading_path]
    common = set(passage_tags(document, drawn[0], extra))
    for passage in drawn[1:]:
        common &= set(passage_tags(document, passage, extra))
    return sorted(common)


def _spread(found: list[Candidate], wanted: int) -> list[Candidate]:
    """At most ``wanted * TRIES_PER_STARTER`` candidates, evenly spaced through the document,
    in the order they are tried: the first ``wanted`` spaced widest, then those between."""
    count = min(len(found), wanted * TRIES_PER_STARTER)
    if count == 0:
        return []
    step = len(found) / count
    picked = [found[int(i * step + step / 2)] for i in range(count)]
    stride = max(1, count // max(wanted, 1))
    return [picked[i] for offset in range(stride) for i in range(offset, count, stride)]


def _similar(candidate: Candidate, kept: list[Candidate]) -> bool:
    mine = set(terms(candidate.text))
    for other in kept:
        theirs = set(terms(other.text))
        if mine and theirs and len(mine & theirs) / len(mine | theirs) > _OVERLAP:
            return True
    return False
