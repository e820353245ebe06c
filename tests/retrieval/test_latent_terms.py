"""The cards' latent terms as the service writes them: multilingual-e5-small's sparse head, with
``GROUNDWORK_LATENT_TERMS=true``."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pytest

from groundwork.retrieval.base import SearchFilter
from groundwork.retrieval.factory import get_retriever
from groundwork.retrieval.latent_terms import READ, card_terms
from groundwork.settings import Settings
from tests.retrieval.conftest import HashingEmbedder, card

if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

    from groundwork.embeddings.base import Terms

ENGLISH = [
    card("sacraments", "There are seven sacraments.", language="en"),
    card("harbour", "The harbour fills and empties twice a day.", language="en"),
]


@pytest.mark.parametrize("written", [True, False])
def test_given_the_setting_when_the_service_writes_cards_then_their_terms_are_written_or_not(
    tmp_path: Path, written: bool
) -> None:
    settings = Settings(data_dir=tmp_path, bootstrap_docs=False, latent_terms=written)
    retriever = get_retriever(settings)
    retriever.upsert(ENGLISH)

    hits = retriever.search("Wie viele Sakramente gibt es?", SearchFilter(), 2, lexical=False)

    assert [hit.card.id for hit in hits] == ["sacraments", "harbour"]
    assert all(bool(hit.latent_terms) is written for hit in hits)


class Reading(HashingEmbedder):
    """Records what its head is given to read."""

    def __init__(self) -> None:
        super().__init__()
        self.read: list[str] = []

    def latent_terms(self, texts: Sequence[str]) -> list[Terms] | None:
        self.read += texts
        return [(np.array([1], np.int32), np.ones(1, np.float32)) for _ in texts]


def test_given_a_long_card_when_its_terms_are_written_then_its_opening_is_read() -> None:
    """The head's pass costs what the text is long; the first READ characters (the heading
    first) found as many sections as the whole card."""
    reading = Reading()
    long = card("long", "A sentence about licences. " * 100, heading="Choosing a licence")

    (blob,) = card_terms([long], reading)

    assert reading.read == [f"Choosing a licence\n{long.text}"[:READ]]
    assert len(blob) == 4
