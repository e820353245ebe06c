"""Questions about a document rather than its text: who wrote it, when, what it is part of.

"Who wrote Federalist No. 51?" is answered by the author on the cards of Federalist No. 51,
which its text never names; "When was it published?" ("What year was …", "In what year was …
written?") by the cards' year. The document is the best-ranked passage whose heading or title
holds every content word the question has besides the asking ones, and that has the field
asked for: a document with no year is not answered from its metadata. The answer names the
document by its citation only ("It was written by Madison. [1]", "It is from 1788. [1]"):
the citation check (:mod:`groundwork.answer.verification`) verifies a sentence's names and
numbers against the cited card's text and its title, heading, author and year, so the year
said must be that card's.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from groundwork.text.terms import terms

if TYPE_CHECKING:
    from collections.abc import Sequence

    from groundwork.domain.cards import Card

_ASKS = (
    ("author", re.compile(r"^\s*who\s+(?:wrote|authored|is\s+the\s+author\s+of)\b", re.I)),
    ("author", re.compile(r"^\s*(?:what\s+is\s+the\s+)?author\s+of\b", re.I)),
    ("title", re.compile(r"^\s*what\s+is\s+the\s+title\s+of\b", re.I)),
    (
        "year",
        re.compile(
            r"^\s*(?:when|(?:in\s+)?(?:what|which)\s+year)\s+(?:was|were)\b"
            r".+\b(?:written|published|composed)\W*$",
            re.I,
        ),
    ),
)
# The words that ask, not the ones that name the document.
_ASKING = frozenset(
    terms("who wrote authored author title what which when year written published composed")
)


def metadata_answer(question: str, passages: Sequence[Card]) -> tuple[int, str] | None:
    """The passage's index and one sentence answering a question about its document."""
    field = next((name for name, pattern in _ASKS if pattern.search(question)), None)
    if field is None:
        return None
    named = set(terms(question)) - _ASKING
    for i, card in enumerate(passages):
        value = getattr(card, field)
        label = " ".join(filter(None, [card.title, *card.heading_path]))
        if value and named and named <= set(terms(label)):
            if field == "author":
                return i, f"It was written by {value}."
            if field == "year":
                return i, f"It is from {value}."
            return i, f"It is part of {value}."
    return None
