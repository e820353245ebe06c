"""The citation object of the API contract."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import BaseModel

if TYPE_CHECKING:
    from groundwork.domain.cards import Card


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

    @classmethod
    def from_card(cls, card: Card, index: int) -> Citation:
        return cls(
            cited_text=card.text,
            cited_text_heading=card.heading,
            document_title=card.title,
            document_index=index,
            document_author=card.author,
            document_year=card.year,
            document_reference=card.reference,
            source_url=card.url,
        )
