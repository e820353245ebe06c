"""Which unit of the retrieved passages answers the question: the passage first, then the unit.

A passage is read as units (:mod:`groundwork.answer.units`): sentences, list items, table
rows, code blocks. A unit that asks something (a question in the text is not its answer) or
only restates the question (no content word the question lacks) is never a candidate, nor is
code unless the question asks how to write something (:func:`groundwork.answer.asking.how_to`),
and then only with the sentence that introduces it.

1. **The passage.** Each retrieved passage is scored without any embedding
   (:data:`PASSAGE_FEATURES`, :data:`PASSAGE_WEIGHTS`): its rank and retrieval score, how much
   of the question its text and its headings cover, its best unit's coverage, whether it holds
   code for a how-to question, whether its section is one the document rejects.
2. **The unit.** Only the units of the best passages (at most :data:`MAX_EMBEDDED`, the best
   passage's first) are embedded with the question; each candidate is scored by a linear model
   over :data:`UNIT_FEATURES` (:data:`UNIT_WEIGHTS`): its similarity and keyword coverage, how
   much of it restates the question, its neighbours' coverage and similarity (the sentence after
   one that only introduces the topic answers), its place, whether it has the kind of answer the
   question asks for (:mod:`groundwork.answer.answer_type`), code for a how-to question, list
   item or table row, a rejected section, its passage's score, and a learned nearness
   (:mod:`groundwork.answer.nearness`: e5's dimensions weighed by how well they tell an answer
   from a sentence on the same topic).

Both weight vectors are conditional-logit models fitted on the real-question benchmark with
each corpus held out in turn (``python -m bench.fit_reading`` prints the held-out figures and
the coefficients shipped here).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING

from groundwork.answer.answer_type import expected, fits
from groundwork.answer.asking import MODALS, how_to, negates, yes_no
from groundwork.answer.metadata import metadata_answer
from groundwork.answer.nearness import fitted_for, nearness
from groundwork.answer.units import Unit, units, word_count
from groundwork.chat.language import detect_language
from groundwork.retrieval.sentence_vectors import key
from groundwork.text.terms import plain_apostrophes, terms, words

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    import numpy as np
    import numpy.typing as npt

    from groundwork.domain.cards import Card
    from groundwork.embeddings.base import Embedder

#: Units read per question: the best passage's, then the next passages' whole, while they fit.
#: Their vectors are stored with their cards; a unit without one is embedded then.
MAX_EMBEDDED = 24

PASSAGE_FEATURES = (
    "rank",  # 0 for the first passage retrieval gives
    "score",  # its retrieval score over the first passage's
    "coverage",  # weighted share of the question's content words in its text and headings
    "heading",  # … in its title, author and headings alone
    "best unit",  # its best candidate unit's coverage
    "code for how-to",  # a how-to question and a code block with its introduction
    "rejected",  # its section is rejected, deferred, an alternative or an open issue
)
PASSAGE_WEIGHTS = (-0.193, 6.114, 0.268, 3.425, 2.557, 1.330, 0.000)

UNIT_FEATURES = (
    "similarity",  # cosine with the question
    "coverage",  # weighted share of the question's content words it has
    "restates",  # share of its content words that are the question's
    "new words",  # log(1 + its content words that the question lacks)
    "previous coverage",  # the unit before it in its passage
    "previous similarity",
    "next coverage",
    "first",  # the first unit of its passage
    "position",  # log(1 + its place in the passage)
    "lacks the kind",  # the question asks for a date, number or name and it has none
    "code for how-to",
    "inline code for how-to",  # a how-to question and a sentence with `code` in it
    "list item",
    "table row",
    "introduces",  # it ends in a colon
    "rejected",
    "words",  # log(1 + its words)
    "passage rank",
    "negates for yes/no",  # a yes/no question and a unit that negates (not, never, …n't)
    "modal for yes/no",  # a yes/no question and a unit that permits or obliges (may, must…)
    "after a question",  # the unit before it asks something (a question and its answer)
    "top coverage",  # no candidate of its passage covers more of the question
    "passage score",  # its passage's score by PASSAGE_WEIGHTS
    "top similarity",  # no embedded candidate of its passage is closer to the question
    "learned nearness",  # groundwork.answer.nearness (its weight stays 1: WEIGHTS are its own)
)
UNIT_WEIGHTS = (
    1.309, 1.352, 0.407, -0.127, 0.855, 1.144, 0.309, 0.867, 0.047, -2.724, 3.227, 1.604,
    -0.523, -1.617, -0.095, 0.000, 0.250, -0.016, 1.253, 0.088, 0.088, 0.318, 0.873, 0.525,
    1.000,
)  # fmt: skip

#: Words that ask for a quantity ("how many"): a sentence that has them is no closer to saying it.
_ASKING = frozenset({"many", "much"})
_REJECTED = re.compile(
    r"\b(?:rejected|deferred|postponed|abandoned|withdrawn|discarded|alternatives?|"
    r"open (?:issues?|questions?)|not (?:adopted|implemented|accepted))\b",
    re.IGNORECASE,
)


def rejected(card: Card) -> str | None:
    """The heading that marks the card's section as rejected, deferred, an alternative or an
    open issue, if one does."""
    return next((h for h in reversed(card.heading_path) if _REJECTED.search(h)), None)


@dataclass(frozen=True)
class Candidate:
    passage: int  # zero-based rank of the passage in the request
    position: int  # unit number inside the passage
    text: str  # the unit as quoted (a code block with its line breaks)
    similarity: float  # cosine with the question (a code block's: its introduction's)
    coverage: float  # weighted share of the question's content words it contains
    new_terms: frozenset[str]  # its content words that the question lacks
    fits: bool = True  # it has the kind of answer the question asks for, if any
    score: float = 0.0  # by UNIT_WEIGHTS
    #: A code block's introducing sentence, quoted before it.
    intro: str | None = None
    #: The heading that marks its section as rejected, deferred, an alternative or open.
    rejected: str | None = None


@dataclass(frozen=True)
class Evidence:
    """The candidates, best first, and how much of the question the passages cover at all."""

    candidates: list[Candidate]
    passage_coverage: float  # the best single passage's weighted share of the question's words
    #: A question about a document (its author, year, title) answered from a card's metadata:
    #: the passage's index and the sentence (see :mod:`groundwork.answer.metadata`).
    card_answer: tuple[int, str] | None = None
    #: The question and the passage of the best unit are in English (or of no language
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


@dataclass(frozen=True)
class Placed:
    """A unit of a passage, with what its words say about the question."""

    passage: int
    position: int
    unit: Unit
    found: frozenset[str]  # its content words (a code block's: with its introduction's)
    coverage: float
    candidate: bool
    fits: bool


@dataclass
class Reading:
    """The passages read against the question before anything is embedded."""

    question: str
    placed: list[Placed]
    #: Per passage: its units' indices into ``placed``.
    by_passage: list[list[int]]
    passage_features: list[tuple[float, ...]]
    unit_lexical: list[tuple[float, ...]]  # UNIT_FEATURES but the embedded and passage ones
    passage_coverage: float
    #: Per passage: the heading that marks its section as rejected, if one does.
    rejected: list[str | None]
    language: str | None  # the question's, detected

    def passage_scores(self, weights: Sequence[float] = PASSAGE_WEIGHTS) -> list[float]:
        return [_dot(weights, f) for f in self.passage_features]

    def passage_order(self, scores: Sequence[float]) -> list[int]:
        return sorted(range(len(scores)), key=lambda p: (-scores[p], p))

    def to_embed(self, order: Sequence[int], budget: int = MAX_EMBEDDED) -> list[int]:
        """The units whose similarity is needed: whole passages, best first, within budget
        (the best passage's first ``budget`` at least)."""
        chosen: list[int] = []
        for p in order:
            wanted = [i for i in self.by_passage[p] if self.placed[i].unit.kind != "code"]
            if not any(self.placed[i].candidate for i in self.by_passage[p]):
                continue
            if chosen and len(chosen) + len(wanted) > budget:
                break
            chosen += wanted[: budget - len(chosen)]
        return chosen

    def embedded_text(self, i: int) -> str:
        return self.placed[i].unit.text

    def embedded_as(self, i: int) -> int:
        """The unit whose vector stands for unit ``i``: a code block's introduction, or itself."""
        placed = self.placed[i]
        if placed.unit.kind == "code" and placed.unit.intro is not None:
            return self.by_passage[placed.passage][placed.unit.intro]
        return i

    def shown_with(self, i: int) -> tuple[str, str | None]:
        """Unit ``i`` as an answer quotes it, and the sentence quoted before it: a code block
        after its introduction, and a sentence that ends in a colon before the code block it
        introduces, whatever the question asks ("Use the `--colors` flag, like so:" says
        nothing alone)."""
        placed = self.placed[i]
        shown_by = self.embedded_as(i)
        if shown_by != i:
            return placed.unit.text, self.placed[shown_by].unit.text
        siblings = self.by_passage[placed.passage]
        if placed.unit.introduces and placed.position + 1 < len(siblings):
            following = self.placed[siblings[placed.position + 1]].unit
            if following.kind == "code" and following.intro == placed.position:
                return following.text, placed.unit.text
        return placed.unit.text, None

    def unit_features(
        self,
        i: int,
        similarity: dict[int, float],
        passage_scores: Sequence[float],
        learned: Mapping[int, float] | None = None,
    ) -> tuple[float, ...]:
        """UNIT_FEATURES of unit ``i``: the lexical ones and those that need the embeddings
        (``learned``: the units' learned nearness, by index)."""
        placed = self.placed[i]
        siblings = self.by_passage[placed.passage]
        previous = siblings[placed.position - 1] if placed.position > 0 else None
        own = similarity.get(self.embedded_as(i), 0.0)
        before = similarity.get(previous, 0.0) if previous is not None else 0.0
        closest = max(
            (similarity[j] for j in siblings if j in similarity and self.placed[j].candidate),
            default=0.0,
        )
        lexical = self.unit_lexical[i]
        return (
            own,
            *lexical[:4],
            before,
            *lexical[4:],
            passage_scores[placed.passage],
            float(own >= closest),
            (learned or {}).get(self.embedded_as(i), 0.0),
        )


def read(question: str, passages: Sequence[Card], scores: Sequence[float] | None = None) -> Reading:
    """The passages' units and every feature that needs no embedding."""
    wanted = set(terms(question)) - _ASKING
    howto = how_to(question)
    language = detect_language(question)
    yes_or_no = yes_no(question, language)
    kind = expected(question)
    placed_units: list[tuple[int, int, Unit, set[str]]] = []
    by_passage: list[list[int]] = []
    for p, card in enumerate(passages):
        found_units = units(card.text)
        indices = []
        for s, unit in enumerate(found_units):
            text = unit.text
            if unit.kind == "code" and unit.intro is not None:
                text = f"{found_units[unit.intro].text} {text}"
            indices.append(len(placed_units))
            placed_units.append((p, s, unit, set(terms(text))))
        by_passage.append(indices)
    frequency = Counter(t for *_, found in placed_units for t in found & wanted)
    count = max(len(placed_units), 1)
    weight = {t: math.log(1 + count / max(frequency[t], 1)) for t in wanted}
    total = sum(weight.values()) or 1.0

    def share(found: set[str] | frozenset[str]) -> float:
        return sum(weight[t] for t in found & wanted) / total

    placed = []
    for p, s, unit, found in placed_units:
        candidate = bool(wanted) and not unit.asks and bool(found - wanted)
        if unit.kind == "code":
            candidate = candidate and howto and unit.intro is not None
        fitting = fits(kind, question, unit.text if unit.kind != "code" else "")
        placed.append(Placed(p, s, unit, frozenset(found), share(found), candidate, fitting))
    rejected_in = [rejected(card) for card in passages]
    unit_lexical: list[tuple[float, ...]] = []
    top_coverage = [
        max((placed[i].coverage for i in indices if placed[i].candidate), default=0.0)
        for indices in by_passage
    ]
    for item in placed:
        siblings = by_passage[item.passage]
        said = set(words(item.unit.text))
        previous = placed[siblings[item.position - 1]].unit if item.position > 0 else None
        prev_cov = placed[siblings[item.position - 1]].coverage if item.position > 0 else 0.0
        next_cov = (
            placed[siblings[item.position + 1]].coverage
            if item.position + 1 < len(siblings)
            else 0.0
        )
        unit = item.unit
        n_found = len(item.found)
        unit_lexical.append(
            (
                item.coverage,
                len(item.found & wanted) / n_found if n_found else 0.0,
                math.log1p(len(item.found - wanted)),
                prev_cov,
                next_cov,
                float(item.position == 0),
                math.log1p(item.position),
                float(kind is not None and not item.fits),
                float(unit.kind == "code"),
                float(howto and unit.kind != "code" and "`" in unit.text),
                float(unit.kind == "item"),
                float(unit.kind == "row"),
                float(unit.introduces),
                float(rejected_in[item.passage] is not None),
                math.log1p(word_count(unit.text)),
                float(item.passage),
                float(yes_or_no and negates(said)),
                float(yes_or_no and bool(said & MODALS)),
                float(previous is not None and previous.asks),
                float(item.coverage >= top_coverage[item.passage]),
            )
        )
    top = max(scores) if scores else 0.0
    passage_features: list[tuple[float, ...]] = []
    coverages = []
    for p, card in enumerate(passages):
        described = set(terms(f"{_named(card)} {card.text}"))
        heading = set(terms(_named(card)))
        candidates = [placed[i] for i in by_passage[p] if placed[i].candidate]
        coverages.append(share(described))
        passage_features.append(
            (
                float(p),
                scores[p] / top if scores and top > 0 else 1.0,
                coverages[-1],
                share(heading),
                max((c.coverage for c in candidates), default=0.0),
                float(any(c.unit.kind == "code" for c in candidates)),
                float(rejected_in[p] is not None),
            )
        )
    return Reading(
        question,
        placed,
        by_passage,
        passage_features,
        unit_lexical,
        max(coverages, default=0.0),
        rejected_in,
        language,
    )


def gather(
    question: str,
    passages: Sequence[Card],
    embedder: Embedder,
    scores: Sequence[float] | None = None,
    known: Mapping[int, npt.NDArray[np.float32]] | None = None,
) -> Evidence:
    """Score the passages' units against ``question``; ``scores`` are the passages' retrieval
    scores, when known, and ``known`` the units' vectors stored with the cards
    (``retrieval.sentence_vectors``): the units it reads without one are embedded."""
    if not set(terms(question)) - _ASKING or not passages:
        return Evidence([], 0.0)
    card_answer = metadata_answer(question, passages)
    reading = read(question, passages, scores)
    passage_scores = reading.passage_scores()
    chosen = reading.to_embed(reading.passage_order(passage_scores))
    if not chosen:
        return Evidence([], reading.passage_coverage, card_answer)
    asked = embedder.embed([question], role="query")[0]
    known = known or {}
    stored = {i: known.get(key(reading.embedded_text(i))) for i in chosen}
    missing = [i for i, vector in stored.items() if vector is None]
    if missing:
        fresh = embedder.embed([reading.embedded_text(i) for i in missing], role="passage")
        stored.update(zip(missing, fresh, strict=True))
    vectors = {i: vector for i, vector in stored.items() if vector is not None}
    similarity = {i: float(vector @ asked) for i, vector in vectors.items()}
    topic = embedder.embed([question], role="passage")[0] if fitted_for(embedder.model) else None
    learned = nearness(asked, vectors, embedder.model, topic=topic)
    return evidence_of(reading, passages, similarity, passage_scores, card_answer, learned=learned)


def evidence_of(
    reading: Reading,
    passages: Sequence[Card],
    similarity: dict[int, float],
    passage_scores: Sequence[float],
    card_answer: tuple[int, str] | None = None,
    weights: Sequence[float] = UNIT_WEIGHTS,
    learned: Mapping[int, float] | None = None,
) -> Evidence:
    """The evidence once the units to read are embedded (``similarity`` and ``learned``, the
    learned nearness, by unit index)."""
    candidates = ranked(reading, similarity, passage_scores, weights, learned)
    asked_in = reading.language
    written_in = passages[candidates[0].passage].language if candidates else None
    return Evidence(
        candidates,
        reading.passage_coverage,
        card_answer,
        not ({asked_in, written_in} - {None, "en"}),
        None not in (asked_in, written_in) and asked_in != written_in,
        reading.question,
        tuple(frozenset(words(_described(card))) for card in passages),
        tuple(frozenset(words(_named(card))) for card in passages),
    )


def ranked(
    reading: Reading,
    similarity: dict[int, float],
    passage_scores: Sequence[float],
    weights: Sequence[float],
    learned: Mapping[int, float] | None = None,
) -> list[Candidate]:
    """The candidates among the embedded units (and the code they introduce), best first."""
    embedded = set(similarity)
    out = []
    for i, item in enumerate(reading.placed):
        if not item.candidate:
            continue
        # A code block is a candidate only with its introduction (``read``), whose vector is its.
        if reading.embedded_as(i) not in embedded:
            continue
        text, intro = reading.shown_with(i)
        vector = reading.unit_features(i, similarity, passage_scores, learned)
        out.append(
            Candidate(
                passage=item.passage,
                position=item.position,
                text=text,
                similarity=vector[0],
                coverage=item.coverage,
                new_terms=frozenset(item.found - set(terms(reading.question))),
                fits=item.fits,
                score=_dot(weights, vector),
                intro=intro,
                rejected=reading.rejected[item.passage],
            )
        )
    out.sort(key=lambda c: (-c.score, c.passage, c.position))
    # A code block and the sentence that introduces it are quoted alike: once, at the better.
    seen: set[tuple[int, str, str]] = set()
    kept = []
    for c in out:
        if c.intro is not None:
            if (c.passage, c.intro, c.text) in seen:
                continue
            seen.add((c.passage, c.intro, c.text))
        kept.append(c)
    return kept


def _dot(weights: Sequence[float], values: Sequence[float]) -> float:
    return sum(w * x for w, x in zip(weights, values, strict=True))


def _named(card: Card) -> str:
    """What names the card apart from its text: its title, author and headings."""
    return " ".join([card.byline, *card.heading_path])


def _described(card: Card) -> str:
    """The card's text with its title, author and headings, which name what it is about;
    apostrophes plain, as the answerability check reads the question's names ("O’Brien" is
    "O'Brien")."""
    described = " ".join([_named(card), card.heading or "", card.text])
    return plain_apostrophes(described)
