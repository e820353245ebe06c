"""Word terms for lexical matching: lower-cased, accents kept, common words dropped."""

from __future__ import annotations

import re

_WORD = re.compile(r"\w+(?:[-']\w+)*", re.UNICODE)

STOPWORDS = frozenset(
    """a an and are as at be been but by can could did do does for from had has have how i if in
    into is it its me my of on or our so than that the their them then there these they this to
    was we were what when where which who whom why will with would you your about also any
    should shall may might must not no nor only own same such too very just over under again
    further once here both each few more most other some all am being he her him his she""".split()
)


def tokens(text: str) -> list[str]:
    """Every word of ``text``, as written."""
    return _WORD.findall(text)


def words(text: str) -> list[str]:
    """Every word of ``text``, lower-cased."""
    return [w.lower() for w in tokens(text)]


def plain_apostrophes(text: str) -> str:
    """``text`` with its typographic apostrophes (’) made plain ('), as keyboards type them."""
    return text.replace("’", "'")


def terms(text: str) -> list[str]:
    """The content words of ``text``: lower-cased, stopwords removed, crude plural folding."""
    return [stem(w) for w in words(text) if w not in STOPWORDS]


def stem(word: str) -> str:
    """Fold the most common English inflections so that "tests" meets "test"."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word
