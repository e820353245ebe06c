"""A lexical rerank signal: how much of a question's weight a passage covers.

Term weights are inverse document frequencies over the candidates themselves, so a word every
candidate shares counts little and the word that tells them apart counts most.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from groundwork.text.terms import terms

if TYPE_CHECKING:
    from collections.abc import Sequence

    from groundwork.domain.cards import Card


def coverage(query: str, cards: Sequence[Card]) -> list[float]:
    """For each card, the IDF-weighted share (0–1) of the query's content terms it contains."""
    wanted = set(terms(query))
    if not wanted or not cards:
        return [0.0] * len(cards)
    present = [wanted & set(terms(f"{card.heading or ''} {card.text}")) for card in cards]
    frequency = {t: sum(t in p for p in present) for t in wanted}
    weight = {t: math.log(1 + len(cards) / (1 + frequency[t])) for t in wanted}
    total = sum(weight.values())
    return [sum(weight[t] for t in p) / total for p in present]
