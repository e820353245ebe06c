"""What the heuristic verifier compares: content stems, numbers, names and negation of a text."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from groundwork.text.terms import HANGUL, STOPWORDS, UNSPACED_CHARACTERS

# Words, and numbers with separators ("1,500", "3.5") kept whole.
_TOKEN = re.compile(r"\d+(?:[.,]\d+)*(?:st|nd|rd|th|s)?\b|[^\W\d_]+(?:['’][^\W\d_]+)*")
# A Chinese or Japanese character, or a Hangul syllable or letter: each is a token of its own
# here (the keyword side reads character pairs, ``text.terms``): Chinese and Japanese do not
# separate words, and a Korean word carries its particles.
_CHARACTERS = re.compile(f"[{UNSPACED_CHARACTERS}{HANGUL}]+")
_ORDINAL = re.compile(r"(?<=\d)(?:st|nd|rd|th|s)$")
_NUMBER_WORDS = {
    w: str(i)
    for i, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
        "fifteen sixteen seventeen eighteen nineteen twenty".split()
    )
} | {"thirty": "30", "forty": "40", "fifty": "50", "sixty": "60", "seventy": "70", "eighty": "80",
     "ninety": "90", "hundred": "100", "first": "1", "second": "2", "third": "3", "fourth": "4",
     "fifth": "5", "sixth": "6", "seventh": "7", "eighth": "8", "ninth": "9", "tenth": "10",
     "twice": "2", "once": "1", "dozen": "12"}  # fmt: skip
NEGATIONS = frozenset("not no never none nobody nothing neither nor cannot without nowhere".split())
# Words that say who asserts rather than what is asserted ("Wikipedia cites that ..."), and
# fillers that carry little of a claim's content; they count for less than content words.
_LIGHT = frozenset(
    """according cite cites cited say says said state states stated claim claims claimed report
    reports reported write writes wrote written note notes noted mention mentions mentioned
    describe describes described well known called named also later then now currently
    including include includes included become became becomes based led lead leads make made
    makes take took taken get got use used using several many various much often one ones
    however although though while thus since whose whom during among around""".split()
)
# How much a word counts in a claim's coverage, against 1 for an ordinary content word.
NUMBER_WEIGHT = 1.5
NAME_WEIGHT = 1.5
LIGHT_WEIGHT = 0.25
_EXTRA_STOPWORDS = frozenset("'s s yet still ever upon onto via per".split())
# Different words for one meaning, folded to the same stem.
_SYNONYMS = {
    "death": "die", "dead": "die", "died": "die", "dies": "die", "dying": "die", "deaths": "die",
    "killed": "die", "born": "birth", "movie": "film", "movies": "film", "begin": "start",
    "began": "start", "begun": "start", "wed": "marri", "spouse": "marri", "wife": "marri",
    "husband": "marri", "kid": "child", "children": "child", "people": "person",
    "persons": "person", "men": "man", "women": "woman", "largest": "big", "biggest": "big",
    "large": "big", "won": "win", "awarded": "win", "bought": "buy", "sold": "sell",
    "wrote": "write", "written": "write", "writer": "write", "author": "write",
    "starring": "star", "starred": "star", "stars": "star", "founded": "found",
    "founder": "found", "founders": "found", "co-founded": "found", "established": "found",
    "created": "creat", "creator": "creat", "us": "usa", "u.s": "usa", "america": "usa",
    "american": "usa",
}  # fmt: skip
_MONTHS = {
    month[:3]: month
    for month in "january february march april may june july august september october november "
    "december".split()
} | {"sept": "september"}
_VOWELS = frozenset("aeiouy")


@dataclass(frozen=True)
class Features:
    stems: frozenset[str]  # content stems, numbers included
    weights: dict[str, float]  # stem -> how much it counts in a claim
    numbers: frozenset[str]
    names: frozenset[str]  # stems of capitalised words other than the first
    negated: bool


def tokens(text: str) -> list[str]:
    return _TOKEN.findall(apart(text))


def apart(text: str) -> str:
    """``text`` with each CJK character set apart by spaces: a word of its own to a split on
    whitespace, and to the tokens (a letter run would otherwise take in the kana after "GitHub"
    or "々", and "2020年" would hold no number)."""
    if text.isascii():  # most text, and a scan costs more than the check
        return text
    return _CHARACTERS.sub(lambda run: f" {' '.join(run.group())} ", text)


def analyse(text: str) -> Features:
    """The features of a claim or a passage."""
    stems: set[str] = set()
    weights: dict[str, float] = {}
    numbers: set[str] = set()
    names: set[str] = set()
    negated = False
    for position, token in enumerate(tokens(text)):
        lower = token.lower()
        if lower in NEGATIONS or lower.endswith(("n't", "n’t")):
            negated = True
            continue
        key = normal(lower)
        if key is None:
            continue
        stems.add(key)
        if key[0].isdigit():
            numbers.add(key)
            weights[key] = NUMBER_WEIGHT
        elif position > 0 and token[0].isupper():
            names.add(key)
            weights[key] = NAME_WEIGHT
        else:
            weights.setdefault(key, LIGHT_WEIGHT if lower in _LIGHT else 1.0)
    return Features(frozenset(stems), weights, frozenset(numbers), frozenset(names), negated)


@lru_cache(maxsize=200_000)
def normal(lower: str) -> str | None:
    """The comparable form of a lower-cased token, or None for a stopword."""
    if lower in STOPWORDS or lower in _EXTRA_STOPWORDS:
        return None
    if lower[0].isdigit():
        return _ORDINAL.sub("", lower).replace(",", "")
    if lower in _NUMBER_WORDS:
        return _NUMBER_WORDS[lower]
    lower = lower.replace("’", "'")
    if lower.endswith("'s"):
        lower = lower[:-2]
    lower = _MONTHS.get(lower, lower)  # "Nov" meets "November"
    return _SYNONYMS.get(lower) or stem(lower)


def stem(word: str) -> str:
    """A light suffix stripper: "directed", "director" and "direction" meet at "direct"."""
    if len(word) <= 3 or not word.isascii():
        return word
    for suffix, replacement, min_len in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= min_len:
            base = word[: len(word) - len(suffix)] + replacement
            if not (_VOWELS & set(base)):
                continue
            if suffix in ("ing", "ed", "er") and len(base) > 2 and base[-1] == base[-2]:
                base = base[:-1]  # "starred" -> "star", "running" -> "run"
            word = base
            break
    return word[:-1] if len(word) > 3 and word.endswith("e") else word


_SUFFIXES = (
    ("ational", "ate", 3),
    ("ization", "ize", 3),
    ("ations", "ate", 3),
    ("ation", "ate", 3),
    ("ities", "", 3),
    ("ity", "", 4),
    ("ments", "", 4),
    ("ment", "", 4),
    ("ness", "", 4),
    ("ously", "ous", 3),
    ("ingly", "", 3),
    ("ions", "", 4),
    ("ion", "", 4),
    ("ies", "y", 2),
    ("ied", "y", 2),
    ("ing", "", 3),
    ("ers", "", 3),
    ("ors", "", 4),
    ("er", "", 4),
    ("or", "", 4),
    ("edly", "", 3),
    ("ly", "", 4),
    ("ed", "", 3),
    ("es", "e", 3),
    ("ss", "ss", 2),
    ("us", "us", 2),
    ("is", "is", 2),
    ("s", "", 3),
)
