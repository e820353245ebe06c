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
   unless the question asks for yes or no or offers a choice (the opposite may be the
   answer), negates itself, names the opposite too or asks how much of the word holds; "not
   equal" says "unequal".

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
COEFFICIENTS = (-27.044, 31.191, -0.413, 0.258, -3.040, -1.090, -0.551, -0.644, -4.528)
#: Below this the documents are taken not to answer: 9.5% of the fitting data's answerable
#: questions score below it, and 9.9% of those of articles held out (the target is at most 10%).
THRESHOLD = 0.252

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
_NEGATING_PREFIXES = ("un", "in", "im", "ir", "il", "dis", "non")
_ROOT_LETTERS = 4
#: Words where such a prefix negates nothing ("improve" is no opposite of "prove"), with the
#: endings their forms add ("improved", "information", "discovery").
_UNNEGATED = frozenset(
    """improve discover inform impress import impose dispose intend invest insight income
    install display dispatch discharge impact impart invent inland inside disease dismiss
    imprint intake indeed instance insist inspect inspire instruct intent invite unit union
    universe""".split()
)
_ENDINGS = ("", *"s es d ed ing ment ments ation ations ion ions er ers ance ant y ies ive".split())
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
        # A yes/no question or a choice is answered by the opposite ("Can hooks be sync?"
        # "They must be async."; "Which is more costly, A or B?" "A is less costly."), and a
        # negated one agrees with it ("wasn't a communist", "non-communist").
        if (
            not yes_no(evidence.question, "en")
            and "or" not in asked
            and not negates(asked, _NEGATIONS)
        ):
            contradicted = float(_contradicted(evidence.question, best.text))
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


def _contradicted(question: str, sentence: str) -> bool:
    """A word of the question that the sentence lacks and whose opposite it has, where the
    question does not name the opposite itself ("formal or informal") nor ask how much of the
    word holds ("How successful …?" "Unsuccessful.")."""
    asked, said = _phrased(question), _phrased(sentence)
    asked_set, said_set = set(asked), set(said)
    degree = {asked[i + 1] for i, w in enumerate(asked[:-1]) if w == "how"}
    for word in asked_set - said_set - degree:
        if _mentions(said_set, word):  # "defeat" is said as "defeated"
            continue
        opposites = set(_OPPOSITES.get(word, ()))
        if len(word) >= _ROOT_LETTERS:
            opposites |= {prefix + word for prefix in _NEGATING_PREFIXES}
        for prefix in _NEGATING_PREFIXES:
            root = word.removeprefix(prefix)
            if root != word and len(root) >= _ROOT_LETTERS and not _unnegated(word):
                opposites.add(root)
        for opposite in opposites & said_set:
            if _mentions(asked_set, opposite) or _unnegated(opposite):
                continue
            if word.endswith(opposite) and _said_negated(said, opposite):
                continue  # "unequal" is said as "not equal"
            return True
    return False


def _phrased(text: str) -> list[str]:
    """The words of ``text`` with "non violent" and "non-violent" written "nonviolent", and
    without "at least" and "at most", which rank nothing."""
    found = words(plain_apostrophes(text))
    out: list[str] = []
    for i, word in enumerate(found):
        if word in ("least", "most") and i > 0 and found[i - 1] == "at":
            out.pop()
        elif out and out[-1] == "non":
            out[-1] = f"non{word}"
        else:
            out.append(word.replace("non-", "non", 1) if word.startswith("non-") else word)
    return out


def _mentions(found: set[str], word: str) -> bool:
    """``word`` or a form of it is among ``found`` ("defeated" for "defeat", "west" for
    "western")."""
    if word in found:
        return True
    if len(word) < _ROOT_LETTERS:
        return False
    return any(
        len(w) >= _ROOT_LETTERS and (w.startswith(word) or word.startswith(w)) for w in found
    )


def _unnegated(word: str) -> bool:
    """A form of a word of :data:`_UNNEGATED` ("improved", "discovery")."""
    bases = {word.removesuffix(ending) for ending in _ENDINGS if word.endswith(ending)}
    return any(base in _UNNEGATED or f"{base}e" in _UNNEGATED for base in bases)


def _said_negated(said: list[str], word: str) -> bool:
    """``word`` follows a negation within two words ("not known", "is not equal", "isn't
    equal")."""
    return any(
        w == word and negates(set(said[max(i - 2, 0) : i]), _NEGATIONS) for i, w in enumerate(said)
    )


def _names(question: str) -> set[str]:
    """The question's capitalised words after its first, and its numbers, lower-cased."""
    found = tokens(plain_apostrophes(question))
    names = {w for w in found[1:] if w[0].isupper()}
    return {w.lower() for w in found if w in names or any(c.isdigit() for c in w)}
