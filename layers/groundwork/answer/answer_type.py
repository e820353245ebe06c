"""What kind of answer an English question asks for, and whether a sentence has one.

"When did…", "In what year…" ask for a date; "How many…", "What percentage…", "Which version…"
for a number; "Who…", "By whom…" for a name; "Where…" for a place. A sentence without a date (a
year, a century, a month, a weekday, or a time counted from something: "within 3 days", "one
month after"), a number (digits or a number word, "seventy", "twice"), a capitalized word the
question lacks, or for a place one of those or a name in code or a link (``request.state``, a
repository) cannot be that answer. Only the question's asking word counts, at its start, after a
comma or a preposition: the "who" of "What must he do who has…", the "when" of "When violence is
used, what…" and the "how much" of "no matter how much…" ask for nothing, and "Where does … come
from?" asks for an origin, not a place. Any other question, and one in another language, asks
for no particular kind.
"""

from __future__ import annotations

import re
from typing import Literal

from groundwork.text.terms import STOPWORDS

Kind = Literal["date", "number", "name", "place"]

# The asking word opens the question or a clause, or follows a preposition ("by whom").
_LEAD = r"(?:^|[,;:]\s*|\b(?:by|to|of|for|with|from|in|on|at|until|since)\s+)"
_AUXILIARY = r"(?:did|was|were|is|are|does|do|had|has|have|will|would|could|can|should|might)"
_ASKS: tuple[tuple[Kind, re.Pattern[str]], ...] = (
    (
        "date",
        re.compile(
            rf"\b(?:what|which) (?:year|century|decade|date|day|month|era)\b"
            rf"|{_LEAD}when {_AUXILIARY}\b"
        ),
    ),
    (
        "number",
        re.compile(
            r"\bhow (?:many|much|long|old|far|large|big|high|tall|often|fast|deep|wide|heavy)\b"
            r"|\bwhat (?:percentage|percent|proportion|number|amount|fraction)\b"
            r"|\bwhat (?:is|was|were) the population\b"
            # "Which Python version…", "What version of…": a version is a number.
            r"|\b(?:what|which) (?:\w+ )?(?:version|release)s?\b"
        ),
    ),
    ("name", re.compile(rf"{_LEAD}(?:who|whom|whose)\b")),
    ("place", re.compile(rf"{_LEAD}where\b")),
)
# Words that ask nothing: a concession ("no matter how much energy"), an origin ("where does
# the name come from?" is answered by a story, not a place).
_NOT_ASKING = re.compile(r"\bno matter (?:how|what|when|where|who)\b|\bwhere\b(?=.*\bcome from\b)")
_MONTHS = "January February March April May June July August September October November December"
_DAYS = "Monday Tuesday Wednesday Thursday Friday Saturday Sunday"
# Month and day names capitalized: "may" and "march" are also verbs.
_DATE = re.compile(
    r"\b(?:1\d{3}|20\d{2})s?\b|\b[Cc]entur(?:y|ies)\b|\b[Dd]ecades?\b|\b(?:BC|AD|BCE|CE)\b"
    rf"|\b(?:{'|'.join(_MONTHS.split())})\b|\b(?:{'|'.join(_DAYS.split())})s?\b"
)
_NUMBER_WORDS = """one two three four five six seven eight nine ten eleven twelve thirteen
    fourteen fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy
    eighty ninety hundred thousand million billion trillion dozen half percent once twice
    thrice""".split()
_NUMBER = re.compile(rf"\d|\b(?:{'|'.join(_NUMBER_WORDS)})\b", re.IGNORECASE)
# A time counted from something answers "when" as well as a date does.
_SPAN = re.compile(
    rf"\b(?:\d+|{'|'.join(_NUMBER_WORDS)})(?:\s|-)+(?:hours?|days?|weeks?|months?|years?)\b",
    re.IGNORECASE,
)
_CODE_OR_LINK = re.compile(r"`[^`]+`|\]\(|https?://")
_CAPITALIZED = re.compile(r"\b[A-Z][\w'’-]*")
_WORD = re.compile(r"\w+")


def expected(question: str) -> Kind | None:
    """The kind of answer ``question`` asks for, if a particular one."""
    asked = _NOT_ASKING.sub(" ", question.lower().strip())
    return next((kind for kind, pattern in _ASKS if pattern.search(asked)), None)


def fits(kind: Kind | None, question: str, sentence: str) -> bool:
    """Whether ``sentence`` has an answer of the ``kind`` that ``question`` asks for."""
    if kind == "date":
        return _DATE.search(sentence) is not None or _SPAN.search(sentence) is not None
    if kind == "number":
        return _NUMBER.search(sentence) is not None
    if kind == "place" and _CODE_OR_LINK.search(sentence):
        return True
    if kind in ("name", "place"):
        asked = {w.lower() for w in _WORD.findall(question)}
        return any(
            w.lower() not in asked and w.lower() not in STOPWORDS
            for w in _CAPITALIZED.findall(sentence)
        )
    return True
