"""Which sentences of the retrieved passages answer the question: meaning, keywords and rank.

Every prose sentence of the passages is a candidate, except one that asks something (a
question in the text is not its answer) and one that only restates the question (it has no
content word the question lacks). Each candidate is scored by its cosine similarity with the
question under the MiniLM embedder (trained on question–answer pairs among others), plus the
inverse-document-frequency weighted share of the question's content words it contains, less
a little for each rank its passage sits below the first, less :data:`TYPE_PENALTY` when the
question asks for a date, a number or a name and the sentence has none
(:mod:`groundwork.answer.answer_type`).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING

from groundwork.answer.answer_type import expected, fits
from groundwork.answer.metadata import metadata_answer
from groundwork.chat.language import detect_language
from groundwork.text.sentences import split_sentences
from groundwork.text.terms import plain_apostrophes, terms, words

if TYPE_CHECKING:
    from collections.abc import Sequence

    from groundwork.domain.cards import Card
    from groundwork.embeddings.base import Embedder

#: The language the embedder (all-MiniLM-L6-v2) was trained on.
EMBEDDER_LANGUAGE = "en"
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

_FENCED = re.compile(r"^(```|~~~).*?^\1[^\n]*$", re.DOTALL | re.MULTILINE)
# A question that asks how to write or run something, which a passage's code may answer.
_HOW_TO = re.compile(
    r"^\W*(?:how\s+(?:do|can|should|would|to)\b|how\s+is\s+\w+\s+(?:written|run|called)"
    r"|what(?:'s|\s+is|\s+are)\s+the\s+(?:command|syntax|code)"
    r"|(?:show|give)\s+(?:me\s+)?(?:an?\s+)?(?:example|the\s+code))",
    re.IGNORECASE,
)


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
    #: The question, or the passage of the best sentence, is in another language than the
    #: embedder's (English), whose similarities then run low.
    beyond_embedder: bool = False
    question: str = ""
    #: Each passage's words with its title's and headings', lower-cased, for the answerability
    #: check's absent names and numbers.
    passage_words: tuple[frozenset[str], ...] = ()
    #: Each passage's title's and headings' words ("Article 1", "Section 8"), lower-cased.
    heading_words: tuple[frozenset[str], ...] = ()

    @property
    def best(self) -> Candidate | None:
        return self.candidates[0] if self.candidates else None


def gather(question: str, passages: Sequence[Card], embedder: Embedder) -> Evidence:
    """Score the passages' sentences against ``question`` (embedded once with them)."""
    wanted = set(terms(question)) - _ASKING
    if not wanted or not passages:
        return Evidence([], 0.0)
    card_answer = metadata_answer(question, passages)
    code = asks_how_to(question)
    sentences = [
        (p, s, text, set(terms(text)))
        for p, card in enumerate(passages)
        for s, text in enumerate(prose(card.text, code=code))
    ]
    found_in = [set(terms(card.text)) & wanted for card in passages]
    frequency = Counter(t for *_, found in sentences for t in found & wanted)
    weight = {t: math.log(1 + max(len(sentences), 1) / max(frequency[t], 1)) for t in wanted}
    total = sum(weight.values())
    passage_coverage = max(sum(weight[t] for t in found) / total for found in found_in)
    kept = [
        (p, s, text, found)
        for p, s, text, found in sentences
        if not text.rstrip("\"'”’)").endswith("?") and found - wanted
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
    vectors = embedder.embed([question, *(text for _, _, text, _ in kept)])
    similarities = vectors[1:] @ vectors[0]
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
    languages = {detect_language(question), passages[candidates[0].passage].language}
    return Evidence(
        candidates,
        passage_coverage,
        card_answer,
        bool(languages - {None, EMBEDDER_LANGUAGE}),
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


def asks_how_to(question: str) -> bool:
    """Whether the question asks how to write or run something ("How do I run the tests?")."""
    return bool(_HOW_TO.match(question))


def prose(text: str, *, code: bool = False) -> list[str]:
    """The passage's sentences on one line each; code blocks and fragments are not prose.

    A sentence ending in a colon only introduces what follows it (a list, a command): alone it
    says nothing, and it would run into the next sentence of the answer. With ``code`` (the
    question asks how to write something), each code block is a candidate too, after the
    sentence that introduces it and with its lines as written: "Install it with:\n\n```…```".
    """
    found: list[str] = []
    start = 0
    for fence in _FENCED.finditer(text) if code else ():
        before = _sentences(text[start : fence.start()])
        found += [s for s in before if not s.endswith(":")]
        if before and len(before[-1].split()) >= 3:
            found.append(f"{before[-1]}\n\n{fence.group(0).strip()}")
        start = fence.end()
    stripped = _FENCED.sub("\n\n", text[start:])
    return found + [s for s in _sentences(stripped) if not s.endswith(":")]


def _sentences(text: str) -> list[str]:
    sentences = (" ".join(span.text.split()) for span in split_sentences(text))
    return [s for s in sentences if len(s.split()) >= 3]
