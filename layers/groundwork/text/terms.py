"""Word terms for lexical matching: lower-cased, accents kept, common words dropped.

Chinese and Japanese are written without spaces, so a run of their characters between two
punctuation marks would be one "word" that no question shares with any passage. Such a run is
read as its overlapping pairs of characters instead ("東京都" as "東京", "京都"), as Lucene's
CJK bigram filter reads it: a pair is about as specific as a word, and needs no dictionary.
Korean is written with spaces, but a word carries its particles and endings ("프로젝트를",
"프로젝트가": the project, as object and as subject), so a run of Hangul is read as its pairs
too, apart from any Chinese or Japanese beside it, as the bigram filter does by default.
"""

from __future__ import annotations

import re

_WORD = re.compile(r"\w+(?:[-']\w+)*", re.UNICODE)
#: The characters of Chinese and Japanese, as a regular expression's class (within brackets):
#: Han ideographs and their iteration marks, hiragana and katakana, full and half width.
UNSPACED_CHARACTERS = (
    "\u3005-\u3007\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
    "\uff66-\uff9f\U00020000-\U0002ebef"
)
#: Hangul: its syllables, and its letters (jamo) as Unicode writes them alone.
HANGUL = "\u1100-\u11ff\u3130-\u318f\uac00-\ud7af"
_PAIRED = re.compile(f"[{UNSPACED_CHARACTERS}]+|[{HANGUL}]+")

STOPWORDS = frozenset(
    """a an and are as at be been but by can could did do does for from had has have how i if in
    into is it its me my of on or our so than that the their them then there these they this to
    was we were what when where which who whom why will with would you your about also any
    should shall may might must not no nor only own same such too very just over under again
    further once here both each few more most other some all am being he her him his she""".split()
)


def tokens(text: str) -> list[str]:
    """Every word of ``text``, as written; a run of Chinese, Japanese or Korean, its character
    pairs."""
    return _WORD.findall(spaced(text))


def spaced(text: str) -> str:
    """``text`` with each run of Chinese, Japanese or Korean characters written as its
    overlapping character pairs, spaced: what a tokenizer that splits on spaces reads as those
    words."""
    if text.isascii():  # most text, and a scan costs more than the check
        return text
    return _PAIRED.sub(lambda run: f" {' '.join(_pairs(run.group()))} ", text)


def _pairs(run: str) -> list[str]:
    return [run] if len(run) == 1 else [run[i : i + 2] for i in range(len(run) - 1)]


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
