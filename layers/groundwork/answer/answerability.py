"""Do the documents answer the question? A calibrated probability from seven signals.

A logistic model over what the evidence of :func:`groundwork.answer.relevance.gather` says:

1. the best candidate sentence's similarity to the question (multilingual-e5-small);
2. its keyword coverage (weighted share of the question's content words it has);
3. the best passage's keyword coverage;
4. the question negates (not, no, never, …n't) and the best sentence does not;
5. a number of the question (a word with a digit: a year, a count) is not in the best sentence
   nor in its passage's title and headings;
6. a superlative or comparative of the question (least, most, first, highest, …) is not in
   the best sentence;
7. how many of the question's names (capitalised words after the first) and numbers no
   retrieved passage has (at most 2).

Signals 4–7 target how questions are written to look answerable when they are not (SQuAD 2.0:
a negation added, a number, an antonym, a superlative or a name swapped). The coefficients were
fitted on SQuAD 2.0 dev (half of its articles, the unanswerable questions included, plus
questions asked where their article is not indexed) with leave-one-article-out
cross-validation. ``python -m bench.fit_answerability --per-article 400`` prints them, the
held-out figures and the curve.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from groundwork.answer.asking import negates
from groundwork.text.terms import plain_apostrophes, tokens, words

if TYPE_CHECKING:
    from collections.abc import Sequence

    from groundwork.answer.relevance import Evidence
    from groundwork.domain.cards import Card

#: intercept, then one weight per feature, in the order of :func:`features`
COEFFICIENTS = (-26.101, 30.154, -0.349, 0.082, -3.010, -0.979, -0.652, -0.654)
#: Below this the documents are taken not to answer: 9.5% of the fitting data's answerable
#: questions score below it, and 10.0% of those of articles held out (the target is at most 10%).
THRESHOLD = 0.251

#: The keyword coverage of the best sentence and of the best passage that goes with a similarity
#: (intercept, slope; least squares over the fitting questions), for questions whose words
#: cannot be compared with the passage's (another language).
SENTENCE_COVERAGE = (-2.801, 3.816)
PASSAGE_COVERAGE = (-2.729, 3.842)
#: How much lower a question's cosine with its answer runs across two languages than within
#: one (the median over de, es, fr, it and pt; 0.045 over ja, zh, ru, ar and hi):
#: ``python -m bench.cross_lingual_gap``. The model was fitted within English.
CROSS_LINGUAL_SHIFT = 0.036

#: English's alone, not ``asking.NEGATIONS``: the model was fitted on English questions.
_NEGATIONS = frozenset({"not", "no", "never", "nor", "none", "neither", "without", "cannot"})
_RANKING = frozenset(
    """least most highest lowest first last largest smallest biggest best worst fewest earliest
    latest longest shortest oldest newest youngest minimum maximum only less fewer greater lower
    higher larger smaller""".split()
)


def features(evidence: Evidence) -> tuple[float, ...]:
    """The model's inputs, in the order of :data:`COEFFICIENTS` (after the intercept)."""
    best = evidence.best
    if best is None:
        return (0.0, 0.0, evidence.passage_coverage, 0.0, 0.0, 0.0, 0.0)
    similarity = best.similarity
    asked = set(words(plain_apostrophes(evidence.question)))
    said = set(words(plain_apostrophes(best.text)))
    numbers = {w for w in asked if any(c.isdigit() for c in w)}
    if evidence.heading_words:  # "Article 1, Section 8" is said by the sentence's headings
        numbers -= evidence.heading_words[best.passage]
    negated, ranking, names = 0.0, 0.0, 0.0
    if evidence.english:  # the negations, superlatives and capitalised names are English ones
        negated = float(negates(asked, _NEGATIONS) and not negates(said, _NEGATIONS))
        ranking = float(bool((asked & _RANKING) - said))
        names = float(min(len(_names(evidence.question) - set().union(*evidence.passage_words)), 2))
    coverage, passage_coverage = best.coverage, evidence.passage_coverage
    if evidence.cross_lingual:
        # Across languages the cosine runs lower, and a question shares few words with its
        # answer: the similarity is read on the scale of one language, and each share of words
        # is at least what goes with that similarity in the fitting data.
        similarity += CROSS_LINGUAL_SHIFT
        coverage = max(coverage, _expected_coverage(similarity, SENTENCE_COVERAGE))
        passage_coverage = max(passage_coverage, _expected_coverage(similarity, PASSAGE_COVERAGE))
    return (
        similarity,
        coverage,
        passage_coverage,
        negated,
        float(bool(numbers - said)),
        ranking,
        names,
    )


def probability(evidence: Evidence) -> float:
    """0–1: how likely the passages answer the question the evidence was gathered for; 1 for
    a question about a document that a card's metadata answers."""
    if evidence.card_answer is not None:
        return 1.0
    intercept, *weights = COEFFICIENTS
    z = intercept + sum(w * x for w, x in zip(weights, features(evidence), strict=True))
    return round(1 / (1 + math.exp(-z)), 4)


def answerability(question: str, passages: Sequence[Card]) -> float:
    """0–1: how likely ``passages`` answer ``question``; uses the configured embedder."""
    from groundwork.answer.relevance import gather
    from groundwork.embeddings.factory import get_embedder

    return probability(gather(question, passages, get_embedder()))


def answers(score: float) -> bool:
    return score >= THRESHOLD


def _expected_coverage(similarity: float, line: tuple[float, float]) -> float:
    intercept, slope = line
    return min(max(intercept + slope * similarity, 0.0), 1.0)


def _names(question: str) -> set[str]:
    """The question's capitalised words after its first, and its numbers, lower-cased."""
    found = tokens(plain_apostrophes(question))
    names = {w for w in found[1:] if w[0].isupper()}
    return {w.lower() for w in found if w in names or any(c.isdigit() for c in w)}
