"""Version 1 of the verifier: lexical coverage with checks of numbers, names and negation.

A claim is scored by how much of its content the best few passages cover, weighted so that
numbers and names count more than ordinary words and reporting verbs ("says", "cites") count
less. A number or a name that no chosen passage contains, or a negation on one side only,
flips the verdict: partial support is not support. Candidate passages come from an inverted
index over the claims' own vocabulary, built with one pass over all the facts' words, so the
cost grows with the facts' length once and not once per claim.
"""

from __future__ import annotations

import math
import re
import threading
from collections import defaultdict
from itertools import repeat
from typing import TYPE_CHECKING

import numpy as np

from groundwork.grounding.base import Passage, Support, Verifier
from groundwork.grounding.features import NEGATIONS, Features, analyse, apart, normal, tokens

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    import numpy.typing as npt

# Between passages in the one string that is split into words; NUL inside a passage is blanked.
_SEPARATOR = "\x00"
_SEPARATOR_CODE = -2
_NEGATION_CODE = -3
# Where one clause ends and another begins, for the scope of a negation.
_CLAUSE = re.compile(r"[;:,()]|\s(?:but|while|whereas|although|though|however|yet)\s")


class HeuristicVerifier(Verifier):
    def __init__(
        self,
        *,
        midpoint: float = 0.6,
        max_passages: int = 4,
        combination_discount: float = 0.97,
        number_penalty: float = 0.2,
        name_penalty: float = 0.4,
        negation_penalty: float = 0.3,
    ) -> None:
        # Coverage at ``midpoint`` scores 0.5 and full coverage 0.99. The defaults were chosen
        # on WiCE dev (bench/grounding_accuracy.py): see docs/grounding.md.
        self._midpoint = midpoint
        self._steepness = math.log(99) / (1 - midpoint)
        self._max_passages = max_passages
        self._combination_discount = combination_discount
        self._number_penalty = number_penalty
        self._name_penalty = name_penalty
        self._negation_penalty = negation_penalty

    def verify(self, claims: Sequence[str], passages: Sequence[Passage]) -> list[Support]:
        wanted = [_Claim(text) for text in claims]
        vocabulary: set[str] = set().union(*(c.features.stems for c in wanted))
        index = _Index(passages, vocabulary)
        return [self._support(claim, index) for claim in wanted]

    def _support(self, wanted: _Claim, index: _Index) -> Support:
        claim = wanted.features
        total = sum(claim.weights.values())
        best = index.best(claim.stems, claim.weights, exclude=()) if total else None
        if best is None:
            return Support(0.0)
        chosen = [best]
        covered = claim.stems & index.stems(best)
        solo = self._score(wanted, covered, total, index, best)
        combined = solo
        while len(chosen) < self._max_passages and covered != claim.stems:
            extra = index.best(claim.stems - covered, claim.weights, exclude=chosen)
            if extra is None:
                break
            chosen.append(extra)
            covered |= claim.stems & index.stems(extra)
            combined = self._combination_discount * self._score(wanted, covered, total, index, best)
        if combined > solo:
            return Support(combined, tuple((i, combined) for i in chosen))
        return Support(solo, ((best, solo),))

    def _score(
        self, wanted: _Claim, covered: frozenset[str], total: float, index: _Index, main: int
    ) -> float:
        claim = wanted.features
        coverage = sum(claim.weights[key] for key in covered) / total
        score = 1 / (1 + math.exp(-self._steepness * (coverage - self._midpoint)))
        if claim.numbers - covered:
            score *= self._number_penalty
        if claim.names - covered:
            score *= self._name_penalty
        # A claim the passage quotes word for word is not a negation on one side only, however
        # its clauses fall.
        if claim.negated != index.negated(main, claim.stems) and not index.quotes(
            main, wanted.text
        ):
            score *= self._negation_penalty
        return score


class _Claim:
    def __init__(self, text: str) -> None:
        self.text = text
        self.features = analyse(text)


class _Index:
    """Which passages hold which of the claims' stems, as sorted integer arrays."""

    def __init__(self, passages: Sequence[Passage], vocabulary: set[str]) -> None:
        self._passages = passages
        self._count = len(passages)
        self._stem_list = sorted(vocabulary)
        stem_ids = {stem: i for i, stem in enumerate(self._stem_list)}
        width = max(1, len(self._stem_list))

        joined = f" {_SEPARATOR} ".join([p.text for p in passages])
        if joined.count(_SEPARATOR) >= self._count:  # a passage holds one of its own
            joined = f" {_SEPARATOR} ".join(p.text.replace(_SEPARATOR, " ") for p in passages)
        # Not lower-cased here: the lexicon learns "The" and "the" apart, once each, which
        # costs less than lower-casing every character of every check.
        # Each CJK character is a word: a sentence learnt as one word made each check look
        # through every sentence seen that shares one of its characters, slower with each text.
        words = apart(joined).split()
        contexts = {text: i for i, text in enumerate(dict.fromkeys(p.context for p in passages))}
        context_words = {text: set(apart(text).split()) for text in contexts}
        coded, entries, context_stems = _LEXICON.code(
            words, set().union(*context_words.values()), stem_ids
        )
        owner = np.cumsum(coded == _SEPARATOR_CODE)
        self._negated = np.zeros(self._count, dtype=bool)
        self._negated[owner[coded == _NEGATION_CODE]] = True
        hits = coded >= 0
        pairs_passage, pairs_stem = _expand(owner[hits], coded[hits], entries)

        # A fact's attributes belong to each of its passages.
        context_of = np.fromiter((contexts[p.context] for p in passages), np.int64, self._count)
        pair_passages, pair_stems = [pairs_passage], [pairs_stem]
        for text, number in contexts.items():
            found = sorted(
                {
                    stem_ids[s]
                    for w in context_words[text]
                    for s in context_stems[w]
                    if s in stem_ids
                }
            )
            if found:
                members = np.flatnonzero(context_of == number)
                pair_passages.append(np.repeat(members, len(found)))
                pair_stems.append(np.tile(np.asarray(found, dtype=np.int64), len(members)))
        keys = np.sort(np.concatenate(pair_passages) * width + np.concatenate(pair_stems))
        if keys.size:
            keys = keys[np.concatenate(([True], keys[1:] != keys[:-1]))]  # each pair once
        stems_by_passage = keys % width
        self._passage_starts = np.searchsorted(keys // width, np.arange(self._count + 1))
        self._by_passage = stems_by_passage
        order = np.argsort(stems_by_passage, kind="stable")
        self._postings = (keys // width)[order]
        self._stem_starts = np.searchsorted(stems_by_passage[order], np.arange(width + 1))
        frequency = np.diff(self._stem_starts)
        self._idf = np.log1p(self._count / np.maximum(frequency, 1))
        self._stem_ids = stem_ids
        self._stems_cache: dict[int, frozenset[str]] = {}
        self._clauses_cache: dict[int, list[Features]] = {}

    def best(
        self, keys: Iterable[str], weights: dict[str, float], exclude: Sequence[int]
    ) -> int | None:
        """The passage that covers most of ``keys``, rare and heavy words first."""
        scores = np.zeros(self._count, dtype=np.float64)
        for key in keys:
            stem = self._stem_ids[key]
            ids = self._postings[self._stem_starts[stem] : self._stem_starts[stem + 1]]
            if len(ids):
                scores[ids] += weights[key] * self._idf[stem]
        if exclude:
            scores[list(exclude)] = 0.0
        best = int(np.argmax(scores)) if self._count else 0
        return best if self._count and scores[best] > 0 else None

    def stems(self, passage: int) -> frozenset[str]:
        if passage not in self._stems_cache:
            ids = self._by_passage[
                self._passage_starts[passage] : self._passage_starts[passage + 1]
            ]
            self._stems_cache[passage] = frozenset(self._stem_list[i] for i in ids)
        return self._stems_cache[passage]

    def quotes(self, passage: int, claim: str) -> bool:
        """Whether the passage contains the claim word for word (whitespace aside)."""
        return " ".join(claim.split()) in " ".join(self._passages[passage].text.split())

    def negated(self, passage: int, keys: frozenset[str]) -> bool:
        """Whether the clause of the passage that carries most of ``keys`` is negated.

        "X was not designed by A; B designed it" supports "B designed it": a negation counts
        only in the clause the claim rests on.
        """
        if not self._negated[passage]:
            return False
        if passage not in self._clauses_cache:
            self._clauses_cache[passage] = [
                analyse(clause) for clause in _CLAUSE.split(self._passages[passage].text)
            ]
        best, negated = -1, False
        for clause in self._clauses_cache[passage]:
            hits = len(keys & clause.stems)
            if hits > best:
                best, negated = hits, clause.negated
        return negated


def _expand(
    passages: npt.NDArray[np.int64], entries: npt.NDArray[np.int64], table: list[list[int]]
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """(passage, stem) pairs from (passage, word) pairs; a word may carry several stems."""
    lengths = np.asarray([len(stems) for stems in table], dtype=np.int64)
    flat = np.asarray([stem for stems in table for stem in stems], dtype=np.int64)
    starts = np.concatenate(([0], np.cumsum(lengths)[:-1])) if len(table) else lengths
    counts = lengths[entries]
    first = np.repeat(starts[entries] - np.concatenate(([0], np.cumsum(counts)[:-1])), counts)
    return np.repeat(passages, counts), flat[first + np.arange(int(counts.sum()))]


class _Lexicon:
    """Whitespace-separated words of the facts, numbered and stemmed once.

    Splitting on whitespace and looking each word up run in C; the regular-expression
    tokenizer and the stemmer see each distinct word once per process, not each occurrence per
    call. Kept across calls, since real text repeats its vocabulary, and bounded: past
    ``limit`` words it starts again at the next call.
    """

    def __init__(self, limit: int = 200_000) -> None:
        self._limit = limit
        self._lock = threading.Lock()
        self._forget()

    def _forget(self) -> None:
        self._ids: dict[str, int] = {}
        self._stems: list[tuple[str, ...]] = []
        self._negations: list[int] = []
        self._forms: dict[str, list[int]] = defaultdict(list)  # stem -> numbers of its words

    def code(
        self, words: list[str], others: set[str], stem_ids: dict[str, int]
    ) -> tuple[npt.NDArray[np.int64], list[list[int]], dict[str, tuple[str, ...]]]:
        """Per word, its entry (the ids of the claims' stems it carries) or a code: a negation,
        the separator, nothing of the claims; the entries; and the stems of ``others`` (the
        attributes' words)."""
        with self._lock:
            if len(self._ids) > self._limit:
                self._forget()
            ids = np.fromiter(map(self._ids.get, words, repeat(-1)), np.int64, count=len(words))
            missing = np.flatnonzero(ids < 0)
            if missing.size:
                for word in dict.fromkeys(words[i] for i in missing.tolist()):
                    self._learn(word)
                ids[missing] = [self._ids[words[i]] for i in missing.tolist()]
            for word in others.difference(self._ids):
                self._learn(word)
            local = np.full(len(self._stems), -1, dtype=np.int64)
            local[self._negations] = _NEGATION_CODE
            # Words that differ only in punctuation ("paris", "paris,") share their stems: one
            # entry per distinct tuple of stems.
            groups: dict[tuple[str, ...], int] = {}
            for key in stem_ids:
                for number in self._forms.get(key, ()):
                    local[number] = groups.setdefault(self._stems[number], len(groups))
            if _SEPARATOR in self._ids:
                local[self._ids[_SEPARATOR]] = _SEPARATOR_CODE
            stems = {word: self._stems[self._ids[word]] for word in others}
        entries = [[stem_ids[stem] for stem in key if stem in stem_ids] for key in groups]
        return local[ids], entries, stems

    def _learn(self, word: str) -> None:
        number = len(self._stems)
        self._ids[word] = number
        found = tokens(word.lower())
        self._stems.append(tuple(k for k in map(normal, found) if k is not None))
        for key in self._stems[number]:
            self._forms[key].append(number)
        if any(t in NEGATIONS or t.endswith(("n't", "n’t")) for t in found):
            self._negations.append(number)


_LEXICON = _Lexicon()
