"""Which sentences of the retrieved passages answer the question: meaning, keywords and rank.

Every prose sentence of the passages is a candidate, except one that asks something (a
question in the text is not its answer) and one that only restates the question (it has no
content word the question lacks). Each candidate is scored by its cosine similarity with the
question under the multilingual embedder (the question embedded as a query, the sentence as a
passage; a sentence's vector stored with its card is used as it is), plus the
inverse-document-frequency weighted share of the question's content words it contains, less
a little for each rank its passage sits below the first, less :data:`TYPE_PENALTY` when the
question asks for a date, a number or a name and the sentence has none
(:mod:`groundwork.answer.answer_type`).
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING

from groundwork.answer.answer_type import expected, fits
from groundwork.answer.metadata import metadata_answer
from groundwork.chat.language import detect_language
from groundwork.retrieval.sentence_vectors import key
from groundwork.text.sentences import asks, prose
from groundwork.text.terms import plain_apostrophes, terms, words

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    import numpy as np
    import numpy.typing as npt

    from groundwork.domain.cards import Card
    from groundwork.embeddings.base import Embedder

#: Weight of the keyword coverage beside the cosine similarity (both 0–1).
KEYWORD_WEIGHT = 0.8
#: What each rank below the first costs a passage's sentences.
RANK_PENALTY = 0.05
#: What a sentence without the kind of answer the question asks for (a date, a number, a name)
#: costs: chosen on SQuAD 2.0 dev with every article held out in turn (0.3 each time).
TYPE_PENALTY = 0.3
#: Sentences embedded per question, those that score best on the question's words and their
#: passage's rank first: the embedding is most of the cost of an answer's first token. On
#: SQuAD 2.0 dev (paragraphs of about six sentences) 16 choose as well as 24 did, and embed a
#: third fewer sentences.
MAX_CANDIDATES = 16

#: Words that ask for a quantity ("how many"): a sentence that has them is no closer to saying it.
_ASKING = frozenset({"many", "much"})


@dataclass(frozen=True)
class Candidate:
    passage: int  # zero-based rank of the passage in the request
    position: int  # sentence number inside the passage
    text: str
    similarity: float  # cosine with the question
    coverage: float  # weighted share of the question's content words it contains
    new_terms: frozenset[str]  # its content words that the question lacks
    fits: bool = True  # it has the kind of answer the question asks for, if any

    @property
    def score(self) -> float:
        return (
            self.similarity
            + KEYWORD_WEIGHT * self.coverage
            - RANK_PENALTY * self.passage
            - TYPE_PENALTY * (not self.fits)
        )


@dataclass(frozen=True)
class Evidence:
    """The candidates, best first, and how much of the question the passages cover at all."""

    candidates: list[Candidate]
    passage_coverage: float  # the best single passage's weighted share of the question's words
    #: A question about a document (its author, year, title) answered from a card's metadata:
    #: the passage's index and the sentence (see :mod:`groundwork.answer.metadata`).
    card_answer: tuple[int, str] | None = None
    #: The question and the passage of the best sentence are in English (or of no language
    #: known): the signals read from English words (negations, superlatives, names) apply.
    english: bool = True
    #: The question and that passage are in two different known languages: their words can
    #: hardly be compared, their meaning can.
    cross_lingual: bool = False
    question: str = ""
    #: Each passage's words with its title's and headings', lower-cased, for the answerability
    #: check's absent names and numbers.
    passage_words: tuple[frozenset[str], ...] = ()
    #: Each passage's title's and headings' words ("Article 1", "Section 8"), lower-cased.
    heading_words: tuple[frozenset[str], ...] = ()

    @property
    def best(self) -> Candidate | None:
        return self.candidates[0] if self.candidates else None


def gather(
    question: str,
    passages: Sequence[Card],
    embedder: Embedder,
    known: Mapping[int, npt.NDArray[np.float32]] | None = None,
) -> Evidence:
    """Score the passages' sentences against ``question``; ``known`` holds sentence vectors
    stored with the cards (``retrieval.sentence_vectors``), the others are embedded."""
    wanted = set(terms(question)) - _ASKING
    if not wanted or not passages:
        return Evidence([], 0.0)
    card_answer = metadata_answer(question, passages)
    sentences = [
        (p, s, text, set(terms(text)))
        for p, card in enumerate(passages)
        for s, text in enumerate(prose(card.text))
    ]
    found_in = [set(terms(card.text)) & wanted for card in passages]
    frequency = Counter(t for *_, found in sentences for t in found & wanted)
    weight = {t: math.log(1 + max(len(sentences), 1) / max(frequency[t], 1)) for t in wanted}
    total = sum(weight.values())
    passage_coverage = max(sum(weight[t] for t in found) / total for found in found_in)
    kept = [
        (p, s, text, found) for p, s, text, found in sentences if not asks(text) and found - wanted
    ]
    if not kept:
        return Evidence([], passage_coverage, card_answer)
    if len(kept) > MAX_CANDIDATES:
        kept.sort(
            key=lambda row: (
                RANK_PENALTY * row[0] - sum(weight[t] for t in row[3] & wanted) / total,
                row[0],
                row[1],
            )
        )
        kept = kept[:MAX_CANDIDATES]
    asked = embedder.embed([question], role="query")[0]
    known = known or {}
    stored = [known.get(key(text)) for _, _, text, _ in kept]
    missing = [i for i, vector in enumerate(stored) if vector is None]
    if missing:
        fresh = embedder.embed([kept[i][2] for i in missing], role="passage")
        for i, vector in zip(missing, fresh, strict=True):
            stored[i] = vector
    similarities = [float(vector @ asked) for vector in stored if vector is not None]
    kind = expected(question)
    candidates = [
        Candidate(
            passage=p,
            position=s,
            text=text,
            similarity=float(similarity),
            coverage=sum(weight[t] for t in found & wanted) / total,
            new_terms=frozenset(found - wanted),
            fits=fits(kind, question, text),
        )
        for (p, s, text, found), similarity in zip(kept, similarities, strict=True)
    ]
    candidates.sort(key=lambda c: (-c.score, c.passage, c.position))
    asked_in = detect_language(question)
    written_in = passages[candidates[0].passage].language
    return Evidence(
        candidates,
        passage_coverage,
        card_answer,
        not ({asked_in, written_in} - {None, "en"}),
        None not in (asked_in, written_in) and asked_in != written_in,
        question,
        tuple(frozenset(words(_described(card))) for card in passages),
        tuple(
            frozenset(words(" ".join([card.title or "", *card.heading_path]))) for card in passages
        ),
    )


def _described(card: Card) -> str:
    """The card's text with its title and headings, which name what it is about; apostrophes
    plain, as the answerability check reads the question's names ("O’Brien" is "O'Brien")."""
    described = " ".join([card.title or "", *card.heading_path, card.heading or "", card.text])
    return plain_apostrophes(described)
