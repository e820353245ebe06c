"""Turns the generator's passage markers into the response's numbering and citation list."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from groundwork.domain.citations import Citation

if TYPE_CHECKING:
    from groundwork.domain.cards import Card

_MARKER = re.compile(r"\s?\[(\d{1,3})\]")


def assemble(text: str, passages: list[Card]) -> tuple[str, list[Citation]]:
    """Renumber markers by first appearance and build one citation per cited passage.

    ``[n]`` in ``text`` names ``passages[n-1]``. In the result, ``[m]`` names
    ``citations[m-1]``, whose ``document_index`` is ``m-1``. A marker naming no passage is
    dropped, so nothing is cited that was not retrieved.
    """
    order: dict[int, int] = {}

    def renumber(match: re.Match[str]) -> str:
        number = int(match.group(1))
        if not 1 <= number <= len(passages):
            return ""
        index = order.setdefault(number - 1, len(order))
        return f"{match.group(0)[: -len(match.group(0).lstrip())]}[{index + 1}]"

    rewritten = _MARKER.sub(renumber, text)
    citations = [Citation.from_card(passages[p], i) for p, i in order.items()]
    return rewritten, citations
