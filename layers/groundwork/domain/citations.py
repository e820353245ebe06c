"""The citation object of the API contract, where it points, and what supports the answer."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

if TYPE_CHECKING:
    from groundwork.domain.cards import Card


class SourceLocation(BaseModel):
    """Where a cited passage is in its document; each field null where unknown.

    ``char_start``/``char_end`` are character offsets (end exclusive) into the document's
    extracted text (``groundwork ingest --text FILE`` prints it), where the passage is
    ``cited_text`` exactly; ``page``/``page_end`` are a PDF's pages (a slide deck's slides),
    one-based; ``section`` is the heading path from the top.
    """

    page: int | None = None
    page_end: int | None = None
    char_start: int | None = None
    char_end: int | None = None
    section: list[str] | None = None

    @classmethod
    def of(cls, card: Card) -> SourceLocation:
        return cls(
            page=card.page,
            page_end=card.page_end,
            char_start=card.char_start,
            char_end=card.char_end,
            section=card.heading_path or None,
        )


class Citation(BaseModel):
    """One cited passage; ``document_index`` is zero-based, markers in the text one-based."""

    cited_text: str
    cited_text_heading: str | None
    document_title: str | None
    document_index: int
    document_author: str | None
    document_year: str | None
    document_reference: str | None
    source_url: str
    #: Null on answers saved before citations pointed into their documents.
    source_location: SourceLocation | None = None
    #: The sentence (or sentences, first to last) of ``cited_text`` that support the answer,
    #: as the verifier chose them; always a substring of ``cited_text``.
    supporting_text: str | None = None

    @classmethod
    def from_card(cls, card: Card, index: int, supporting_text: str | None = None) -> Citation:
        return cls(
            cited_text=card.text,
            cited_text_heading=card.heading,
            document_title=card.title,
            document_index=index,
            document_author=card.author,
            document_year=card.year,
            document_reference=card.reference,
            source_url=card.url,
            source_location=SourceLocation.of(card),
            supporting_text=supporting_text,
        )


class Segment(BaseModel):
    """A stretch of the answer as delivered: UTF-8 byte offsets, end exclusive, and its text
    (the delivered answer's bytes ``[start_index:end_index]``, decoded)."""

    start_index: int = Field(..., ge=0)
    end_index: int = Field(..., ge=0)
    text: str


class GroundingSupport(BaseModel):
    """A sentence of the answer and the citations that support it, as Vertex AI's
    ``groundingSupports``: ``citation_indices`` index ``citations`` (``document_index``), and
    ``confidence_scores`` are the verifier's scores (0–1) for each of them, in the same
    order. The segment leaves out the sentence's markers."""

    segment: Segment
    citation_indices: list[int]
    confidence_scores: list[float]
