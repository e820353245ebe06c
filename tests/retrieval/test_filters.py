"""Filters narrow the search itself, on both sides, so k results still come back."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from groundwork.retrieval.base import SearchFilter, day
from groundwork.retrieval.embedded import EmbeddedIndex
from groundwork.retrieval.keyword import KeywordIndex
from tests.retrieval.conftest import card

# Twenty cards that match the query better than the one the filter allows.
DISTRACTORS = [card(f"d{i}", "taxes taxes taxes on imports and duties") for i in range(20)]


@pytest.fixture
def filled(index: EmbeddedIndex) -> EmbeddedIndex:
    index.upsert(
        [
            *DISTRACTORS,
            card("tagged", "a tax on imports", tags=["finance"], source_id="s2"),
            card("other", "a tax on imports", collection="elsewhere"),
            card(
                "q1", "revenue from taxes in spring", period_start="2024-01", period_end="2024-03"
            ),
            card(
                "q3", "revenue from taxes in autumn", period_start="2024-07", period_end="2024-09"
            ),
            card("timeless", "what a tax is"),
        ]
    )
    return index


@pytest.mark.parametrize("quality", ["fast", "precise"])
@pytest.mark.parametrize(
    ("where", "expected"),
    [
        (SearchFilter(collections=["elsewhere"]), {"other"}),
        (SearchFilter(collections=["main"], tags=["finance"]), {"tagged"}),
        (SearchFilter(source_ids=["s2"]), {"tagged"}),
        (SearchFilter(card_ids=["q1", "timeless"]), {"q1", "timeless"}),
    ],
)
def test_given_a_filter_when_searching_then_only_and_all_allowed_cards_come_back(
    filled: EmbeddedIndex, where: SearchFilter, expected: set[str], quality: str
) -> None:
    hits = filled.search("tax imports revenue", where, 5, quality=quality)  # type: ignore[arg-type]

    assert {hit.card.id for hit in hits} == expected


def test_given_a_period_when_searching_then_overlapping_and_undated_cards_come_back(
    filled: EmbeddedIndex,
) -> None:
    where = SearchFilter(collections=["main"], period_start="2024-02", period_end="2024-04-15")

    ids = {hit.card.id for hit in filled.search("revenue tax", where, 30)}

    assert "q1" in ids
    assert "q3" not in ids
    assert "timeless" in ids


def test_given_many_better_matches_outside_the_filter_when_searching_then_k_results_come_back(
    filled: EmbeddedIndex,
) -> None:
    filled.upsert([card(f"t{i}", f"tax number {i}", tags=["t"]) for i in range(6)])

    hits = filled.search("taxes imports duties", SearchFilter(tags=["t"]), 5, quality="precise")

    assert len(hits) == 5
    assert all(hit.card.id.startswith("t") for hit in hits)


def test_given_dates_of_any_precision_when_widened_then_they_cover_their_whole_span() -> None:
    assert day("2024") == "2024-01-01"
    assert day("2024", end=True) == "2024-12-31"
    assert day("2024-02", end=True) == "2024-02-31"  # compared as text, an upper bound suffices
    assert day("2024-03-05T10:00") == "2024-03-05"


def test_given_an_index_written_before_scope_tokens_when_opened_then_filters_still_work(
    tmp_path: Path,
) -> None:
    old = sqlite3.connect(tmp_path / "index.sqlite3")
    old.executescript(
        "CREATE TABLE cards (rowid INTEGER PRIMARY KEY, id TEXT UNIQUE NOT NULL,"
        " collection TEXT NOT NULL, source_id TEXT NOT NULL, payload TEXT NOT NULL);"
        "CREATE VIRTUAL TABLE cards_fts USING fts5(text, heading, title);"
    )
    item = card("a", "the senate", collection="old")
    old.execute("INSERT INTO cards VALUES (1, 'a', 'old', 's1', ?)", (item.model_dump_json(),))
    old.execute(
        "INSERT INTO cards_fts (rowid, text, heading, title) VALUES (1, 'the senate', '', '')"
    )
    old.commit()
    old.close()

    hits = KeywordIndex(tmp_path / "index.sqlite3").search(
        "senate", SearchFilter(collections=["old"]), 5
    )

    assert [hit.card.id for hit in hits] == ["a"]
