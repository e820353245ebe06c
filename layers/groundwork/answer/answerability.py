"""Do the documents answer the question? A calibrated probability from eight signals.

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
   retrieved passage has (at most 2);
8. a word of the question is contradicted by the best sentence: the sentence lacks it and has
   its opposite, a negating prefix added or taken off ("solved" / "unsolved", "non-tropical"
   / "tropical") or one of a few pairs of opposites ("public" / "private", "born" / "died"),
   unless the question asks for yes or no (the opposite may be the answer) or negates itself.

Signals 4–8 target how questions are written to look answerable when they are not (SQuAD 2.0:
a negation added, a number, an antonym, a superlative or a name swapped). The coefficients were
fitted on SQuAD 2.0 dev (half of its articles, the unanswerable questions included, plus
questions asked where their article is not indexed) with leave-one-article-out
cross-validation. ``python -m bench.fit_answerability --per-article 400`` prints them, the
held-out figures and the curve.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from groundwork.answer.asking import negates, yes_no
from groundwork.text.terms import plain_apostrophes, tokens, words

if TYPE_CHECKING:
    from collections.abc import Sequence

    from groundwork.answer.relevance import Evidence
    from groundwork.domain.cards import Card

#: intercept, then one weight per feature, in the order of :func:`features`
COEFFICIENTS = (-26.966, 31.107, -0.438, 0.266, -3.033, -1.087, -0.567, -0.647, -2.693)
#: Below this the documents are taken not to answer: 9.5% of the fitting data's answerable
#: questions score below it, and 9.9% of those of articles held out (the target is at most 10%).
THRESHOLD = 0.247

#: The keyword coverage of the best sentence and of the best passage that goes with a similarity
#: (intercept, slope; least squares over the fitting questions), for questions whose words
#: cannot be compared with the passage's (another language).
SENTENCE_COVERAGE = (-2.969, 3.996)
PASSAGE_COVERAGE = (-2.862, 3.988)
#: How much lower a question's cosine with its answer runs across two languages than within
#: one (the median over de, es, fr, it and pt; 0.045 over ja, zh, ru, ar and hi):
#: ``python -m bench.cross_lingual_gap``. The model was fitted within English.
CROSS_LINGUAL_SHIFT = 0.036

#: English's alone, not ``asking.NEGATIONS``: the model was fitted on English questions.
_NEGATIONS = frozenset({"not", "no", "never", "nor", "none", "neither", "without", "cannot"})
#: Prefixes that make a word its opposite ("unsolved", "informal", "non-tropical"); the word
#: they go on has at least four letters, so that "to" and "into" are no pair.
_NEGATING_PREFIXES = ("un", "in", "im", "ir", "il", "dis", "non-", "non")
_ROOT_LETTERS = 4
#: Pairs of opposites a sentence may say in place of the question's word (both ways).
_OPPOSITE_PAIRS = """public private|born died|north south|northern southern|east west|
    eastern western|male female|men women|minimum maximum|largest smallest|larger smaller|
    highest lowest|higher lower|earliest latest|earlier later|increase decrease|increased
    decreased|strongest weakest|stronger weaker|success failure|succeeded failed|won lost|
    gained lost|victory defeat|accepted rejected|allowed forbidden|legal illegal|always never|
    included excluded|imports exports|internal external|inner outer|rural urban|upper lower|
    majority minority|most least|more less|more fewer|buy sell|bought sold"""
_OPPOSITES: dict[str, set[str]] = {}
for _pair in _OPPOSITE_PAIRS.split("|"):
    _one, _other = _pair.split()
    _OPPOSITES.setdefault(_one, set()).add(_other)
    _OPPOSITES.setdefault(_other, set()).add(_one)
_RANKING = frozenset(
    """least most highest lowest first last largest smallest biggest best worst fewest earliest
    latest longest shortest oldest newest youngest minimum maximum only less fewer greater lower
    higher larger smaller""".split()
)


def features(evidence: Evidence) -> tuple[float, ...]:
    """The model's inputs, in the order of :data:`COEFFICIENTS` (after the intercept)."""
    best = evidence.best
    if best is None:
        return (0.0, 0.0, evidence.passage_coverage, 0.0, 0.0, 0.0, 0.0, 0.0)
    similarity = best.similarity
    asked = set(words(plain_apostrophes(evidence.question)))
    said = set(words(plain_apostrophes(best.text)))
    numbers = {w for w in asked if any(c.isdigit() for c in w)}
    if evidence.heading_words:  # "Article 1, Section 8" is said by the sentence's headings
        numbers -= evidence.heading_words[best.passage]
    negated, ranking, names, contradicted = 0.0, 0.0, 0.0, 0.0
    if evidence.english:  # the negations, superlatives, names and opposites are English ones
        negated = float(negates(asked, _NEGATIONS) and not negates(said, _NEGATIONS))
        ranking = float(bool((asked & _RANKING) - said))
        names = float(min(len(_names(evidence.question) - set().union(*evidence.passage_words)), 2))
        # A yes/no question is answered by the opposite ("Can hooks be sync?" "They must be
        # async."), and a negated one agrees with it ("wasn't a communist", "non-communist").
        if not yes_no(evidence.question, "en") and not negates(asked, _NEGATIONS):
            contradicted = float(_contradicted(asked, said))
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
        contradicted,
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


def _contradicted(asked: set[str], said: set[str]) -> bool:
    """A word of the question that the sentence lacks and whose opposite it has."""
    for word in asked - said:
        if _OPPOSITES.get(word, set()) & said:
            return True
        for prefix in _NEGATING_PREFIXES:
            if len(word) >= _ROOT_LETTERS and prefix + word in said:
                return True
            root = word.removeprefix(prefix)
            if root != word and len(root) >= _ROOT_LETTERS and root in said:
                return True
    return False


def _names(question: str) -> set[str]:
    """The question's capitalised words after its first, and its numbers, lower-cased."""
    found = tokens(plain_apostrophes(question))
    names = {w for w in found[1:] if w[0].isupper()}
    return {w.lower() for w in found if w in names or any(c.isdigit() for c in w)}
