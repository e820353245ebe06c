"""The answer's language: which passages are searched for it, and which it is written in.

Retrieval prefers the requested language with a filter, not a boost: when the scope holds
cards in that language that share a word with the question (one BM25 query, ``fast``, says
so), only cards in that language are searched, so a German question over the same content
in German and English is answered from, and cites, the German cards. Otherwise the whole
scope is searched and the answer says which language it is in. The shared word matters for
a question asked in one language for an answer in another ("How do I run the tests?" with
``language: de``): nearest neighbours in German would always be found, but the extractive
composer, which matches the question's words, could quote none of them; the English
passages answer it, and the answer is labelled English.

That language is the text's own, detected as questions are; when the text is too short to
tell (``God made us. [1]``), it is the language every cited passage shares.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from groundwork.chat.language import detect_language

if TYPE_CHECKING:
    from collections.abc import Sequence

    from groundwork.domain.cards import Card, Hit
    from groundwork.retrieval.base import Quality, Retriever, SearchFilter

_MARKER = re.compile(r"\[\d+\]")
#: Characters of an answer read to detect its language (detection time grows with the text).
_SAMPLE = 20_000


def search_in_language(
    retriever: Retriever,
    query: str,
    where: SearchFilter,
    k: int,
    *,
    quality: Quality,
    language: str | None,
) -> list[Hit]:
    """The ``k`` best cards in ``language`` when some match the question's words, else the
    ``k`` best of all."""
    if language:
        narrowed = where.model_copy(update={"language": language})
        probe = retriever.search(query, narrowed, k if quality == "fast" else 1, quality="fast")
        if probe:
            return probe if quality == "fast" else retriever.search(query, narrowed, k)
    return retriever.search(query, where, k, quality=quality)


def written_language(text: str, cited: Sequence[Card]) -> str | None:
    """The ISO 639-1 code of the language ``text`` is written in; None when unknown."""
    detected = detect_language(_MARKER.sub(" ", text[:_SAMPLE]))
    if detected:
        return detected
    languages = {card.language for card in cited}
    return languages.pop() if len(languages) == 1 else None
