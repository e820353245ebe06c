"""Collection → source → cards: the passages answers are built from and cite."""

from __future__ import annotations

from pydantic import BaseModel, Field


class Card(BaseModel):
    """One passage of a source, with everything a citation names."""

    id: str
    collection: str
    source_id: str
    text: str
    heading: str | None = None
    heading_path: list[str] = Field(default_factory=list)
    reference: str | None = None
    title: str | None = None
    author: str | None = None
    year: str | None = None
    url: str
    tags: list[str] = Field(default_factory=list)
    language: str | None = None
    period_start: str | None = None
    period_end: str | None = None
    position: int = 0
    #: Where the passage is in its document's extracted text (``groundwork ingest --text``):
    #: character offsets, end exclusive. None on cards indexed before they were kept.
    char_start: int | None = None
    char_end: int | None = None
    #: The pages of a PDF the passage is on, first and last (one-based); None elsewhere.
    page: int | None = None
    page_end: int | None = None

    @property
    def byline(self) -> str:
        """Its title and author, as searched: a question may name who wrote a section
        ("What did Jay say …") as readily as its title."""
        return " ".join(part for part in (self.title, self.author) if part)


class Hit(BaseModel):
    """A card returned by a search, with its relevance score (higher is better)."""

    card: Card
    score: float
    #: Its sentences' vectors, as the index stores them (``retrieval.sentence_vectors``), when
    #: the index holds them and they were built by the configured embedder.
    sentence_vectors: bytes | None = Field(default=None, exclude=True, repr=False)
    #: Its sparse latent terms, as stored (``retrieval.latent_terms``), when it has them.
    latent_terms: bytes | None = Field(default=None, exclude=True, repr=False)
    #: Its own vector (float32, little-endian), when the search by meaning reads it
    #: (``retrieval.hubness``).
    vector: bytes | None = Field(default=None, exclude=True, repr=False)
