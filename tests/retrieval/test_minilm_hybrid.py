"""The real model, on a handful of cards: a paraphrase with no shared word is found."""

from __future__ import annotations

from pathlib import Path

from groundwork.embeddings.factory import get_embedder
from groundwork.retrieval.base import SearchFilter
from groundwork.retrieval.embedded import EmbeddedIndex
from groundwork.settings import Settings
from tests.retrieval.conftest import card


def test_given_a_paraphrase_when_searching_precisely_then_the_right_card_ranks_first(
    tmp_path: Path,
) -> None:
    index = EmbeddedIndex(tmp_path / "index.sqlite3", get_embedder(Settings()))
    index.upsert(
        [
            card("cat", "The kitten slept on the rug all afternoon."),
            card("tax", "Congress may lay and collect duties on imported goods."),
            card("river", "The river floods the valley every spring."),
        ]
    )

    fast = index.search("tariffs", SearchFilter(), 3, quality="fast")
    precise = index.search("tariffs", SearchFilter(), 3, quality="precise")

    assert fast == []
    assert precise[0].card.id == "tax"
