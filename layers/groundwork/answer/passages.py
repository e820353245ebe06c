"""The passages an answer reads: the best cards in the answer's language, one per section first.

A long section of a document is cut into several cards under one heading, and they tend to
come back together: the first five by score were often three cards of one section, which left
two chances to find the section that answers. So the ``k`` passages are chosen from the best
``POOL_FACTOR * k``: the best card of each section, in score order, then the sections' other
cards, in score order, when there are fewer than ``k`` sections. A card directly under its
document's title (a heading path that is the title alone, or none: plain text, an article
without sections) is a section of its own, so a document without headings is not read one
card at a time; a page whose title is not among its headings (Markdown's front matter, a
book's metadata) has its top-level sections as heading paths of one level, and each is one
section.

The Open Source Guides of ``bench.multilingual`` (sections of several cards) find the right
section among the five more often this way (in most languages, and less in none); on the
real-question benchmark, whose sections are mostly one card, nothing moves (docs/retrieval.md,
"One card per section", has the figures).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from groundwork.answer.language import search_in_language

if TYPE_CHECKING:
    from collections.abc import Sequence

    from groundwork.domain.cards import Card, Hit
    from groundwork.retrieval.base import Quality, Retriever, SearchFilter

#: The pool the ``k`` passages are drawn from, as a multiple of ``k``.
POOL_FACTOR = 3


def answer_passages(
    retriever: Retriever,
    query: str,
    where: SearchFilter,
    k: int,
    *,
    quality: Quality,
    language: str | None,
) -> list[Hit]:
    """The ``k`` cards an answer reads, searched as ``search_in_language`` searches."""
    pool = search_in_language(
        retriever, query, where, POOL_FACTOR * k, quality=quality, language=language
    )
    return one_per_section(pool, k)


def one_per_section(hits: Sequence[Hit], k: int) -> list[Hit]:
    """The first ``k`` of ``hits`` (best first) once each section's first card comes before
    every section's second."""
    firsts: list[Hit] = []
    others: list[Hit] = []
    seen: set[tuple[str, ...]] = set()
    for hit in hits:
        section = _section(hit.card)
        (others if section in seen else firsts).append(hit)
        seen.add(section)
    return (firsts + others)[:k]


def _section(card: Card) -> tuple[str, ...]:
    path = card.heading_path
    if not path or path == [card.title]:
        return (card.id,)
    return (card.collection, card.source_id, *path)
