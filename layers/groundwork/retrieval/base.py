"""The retrieval port: cards in, ranked cards out, filtered inside the search."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, Field, model_validator

from groundwork.errors import ApiError, BackendUnavailable

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from groundwork.domain.cards import Card, Hit
    from groundwork.embeddings.base import EmbeddingModel

#: ``fast``: keyword search alone, no model call. ``precise``: keyword and vector search fused,
#: over a larger pool, then reranked. See docs/retrieval.md.
Quality = Literal["fast", "precise"]
#: Weight of the keyword side in the fused score of ``precise`` (the vector side has the rest),
#: on both indexes. Chosen with multilingual-e5 on the Open Source Guides in de, es, ja, ru and
#: ar (``bench.multilingual --parts weights``): BM25 counts shared words, which a question put
#: in its own words, or in a language the English stemmer does not know, lacks.
KEYWORD_WEIGHT = 0.3


class RetrievalUnavailable(BackendUnavailable):
    """The index did not answer within its budget (a dead or hung OpenSearch, the index file
    on a full disk), or its circuit is open: 503 ``retrieval.unavailable``."""

    code = "retrieval.unavailable"
    what = "The passage index"


class Restriction(BaseModel):
    """The part of a collection a grant with a filter shows: the cards with one of ``tags``
    or from one of ``source_ids`` (at least one of the two is set)."""

    tags: list[str] = Field(default_factory=list)
    source_ids: list[str] = Field(default_factory=list)

    def allows(self, source_id: str | None, tags: Sequence[str]) -> bool:
        """A card of that source with those tags (or what was drawn from such cards)."""
        return source_id in self.source_ids or not set(tags).isdisjoint(self.tags)


class SearchFilter(BaseModel):
    """What a search may return; every set field narrows it.

    A period keeps the cards whose own period overlaps it; cards without a date are timeless
    and always kept. Dates are ISO strings, as precise as known: ``2024``, ``2024-03``,
    ``2024-03-31``.
    """

    collections: list[str] = Field(default_factory=list)
    source_ids: list[str] | None = None
    card_ids: list[str] | None = None
    tags: list[str] | None = None
    period_start: str | None = None
    period_end: str | None = None
    #: Only cards in this language (ISO 639-1); ``answer.language`` decides when to prefer it.
    language: str | None = None
    #: Collections of ``collections`` that the user sees only part of (a grant with a filter,
    #: see docs/access.md): their cards must also pass the restriction. Part of the query on
    #: every side of the search, like the fields above, so hidden cards are never ranked.
    restricted: dict[str, Restriction] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _restricts_searched_collections(self) -> SearchFilter:
        # An empty ``collections`` searches them all; a restriction must name what it narrows.
        unknown = set(self.restricted) - set(self.collections)
        if unknown:
            raise ValueError(f"restricted collections not searched: {sorted(unknown)}")
        if any(not r.tags and not r.source_ids for r in self.restricted.values()):
            raise ValueError("a restriction needs tags or sources")
        return self


class IndexEmbedderMismatch(ApiError):
    """The index's vectors were built by another embedding model than the one configured:
    searching or writing would mix two models' vectors, whose cosines mean nothing."""

    def __init__(self, built_by: EmbeddingModel, configured: EmbeddingModel) -> None:
        super().__init__(
            503,
            "index.embedder_mismatch",
            f"The index was built with {built_by.name} ({built_by.dimension} dimensions), but "
            f"this service embeds with {configured.name} ({configured.dimension}): run "
            "`groundwork reindex` to re-embed every card with the configured model.",
        )
        self.built_by = built_by
        self.configured = configured


class IndexReindexing(ApiError):
    """``groundwork reindex`` is writing the index anew: until it ends, it is incomplete."""

    def __init__(self) -> None:
        super().__init__(
            503,
            "index.reindexing",
            "The index is being rebuilt with another embedding model (`groundwork reindex`); "
            "retry when it has finished.",
        )


class Retriever(ABC):
    """An index of cards."""

    @abstractmethod
    def upsert(self, cards: Sequence[Card]) -> None:
        """Add cards, replacing any with the same id."""

    @abstractmethod
    def delete_source(self, source_id: str) -> int:
        """Remove every card of a source; returns how many were removed."""

    @abstractmethod
    def replace_source(
        self,
        source_id: str,
        cards: Sequence[Card],
        *,
        progress: Callable[[int], object] | None = None,
    ) -> None:
        """Make ``cards`` the whole of a source: a re-ingest's write.

        A search never finds the source missing, even if the process dies midway: the new
        cards are made ready (embedded) first, then either swapped in one transaction (the
        SQLite index), or written before the source's cards that are not among them are
        deleted (OpenSearch), where a crash in between leaves both versions, never neither.
        Every card must belong to ``source_id``. ``progress`` is called with how many cards are
        ready so far, as they are (embedding a large document takes minutes).
        """

    @abstractmethod
    def search(
        self,
        query: str,
        where: SearchFilter,
        k: int,
        *,
        quality: Quality = "precise",
        lexical: bool = True,
    ) -> list[Hit]:
        """The ``k`` best cards for ``query`` among those ``where`` allows, best first.

        ``lexical=False`` ranks by meaning alone, whatever the ``quality``, with scores on the
        scale of ``precise`` when no card shares a word: for a question in a language none of
        the cards is written in, whose words match only names and cognates and would pull
        those passages up (an index without vectors has only the words)."""

    @abstractmethod
    def count(self, collection: str | None = None) -> int:
        """How many cards the index holds, in one collection or in all."""

    def unlocated(self) -> dict[str, int]:
        """Cards written before cards knew where they are in their document (no character
        range), counted by collection: their citations have no ``source_location`` until
        their files are ingested again."""
        return {}

    @abstractmethod
    def source_counts(self, where: SearchFilter) -> dict[str, int]:
        """How many cards ``where`` allows in each source (sources without any are absent)."""

    def source_cards(self, collection: str) -> dict[str, int]:
        """How many cards the index holds for each source of ``collection`` (sources without
        any are absent): what ingest checks a source's record against, after its own writes."""
        return self.source_counts(SearchFilter(collections=[collection]))

    def reindex(self, *, progress: Callable[[int, int], object] | None = None) -> int:
        """Re-embed every card with the configured embedder and record it as the index's,
        resumably: a run killed midway goes on where it stopped. Returns the cards embedded
        (none for an index without vectors)."""
        return 0


def min_max(scores: Sequence[float]) -> list[float]:
    """``scores`` min-max normalised to 0–1; all 1 when they are equal."""
    if not scores:
        return []
    low, spread = min(scores), max(scores) - min(scores)
    return [(score - low) / spread if spread > 0 else 1.0 for score in scores]


def day(value: str, *, end: bool = False) -> str:
    """An ISO date of any precision as a full day, its first (or, with ``end``, last) one."""
    parts = value.strip().split("-")
    year = parts[0].zfill(4)
    month = parts[1].zfill(2) if len(parts) > 1 else ("12" if end else "01")
    dom = parts[2][:2].zfill(2) if len(parts) > 2 else ("31" if end else "01")
    return f"{year}-{month}-{dom}"
