"""The answer's language: which passages are searched for it, and which it is written in.

Retrieval prefers the requested language with a filter, not a boost: when the scope holds
cards in that language, only they are searched, so a German question over the same content
in German and English is answered from, and cites, the German cards. When the filtered
search finds nothing (no card in that language; on ``fast``, none that shares a word with
the question), the whole scope is searched and the answer says which language it is in.

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


def search_in_language(
    retriever: Retriever,
    query: str,
    where: SearchFilter,
    k: int,
    *,
    quality: Quality,
    language: str | None,
) -> list[Hit]:
    """The ``k`` best cards in ``language`` when there are any, else the ``k`` best of all."""
    if language:
        narrowed = where.model_copy(update={"language": language})
        hits = retriever.search(query, narrowed, k, quality=quality)
        if hits:
            return hits
    return retriever.search(query, where, k, quality=quality)


def written_language(text: str, cited: Sequence[Card]) -> str | None:
    """The ISO 639-1 code of the language ``text`` is written in; None when unknown."""
    detected = detect_language(_MARKER.sub(" ", text))
    if detected:
        return detected
    languages = {card.language for card in cited}
    return languages.pop() if len(languages) == 1 else None
