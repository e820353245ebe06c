"""Chinese and Japanese, written without spaces: their words are character pairs, wherever
words are counted, and in an index written before that (the contract has the search itself)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from groundwork.retrieval.base import SearchFilter
from groundwork.retrieval.keyword import KeywordIndex
from groundwork.text.terms import terms, tokens
from tests.retrieval.conftest import card

ALL = SearchFilter()
FUJI = "富士山は日本で一番高い山です。"


def test_given_japanese_when_tokenised_then_each_run_is_its_character_pairs() -> None:
    assert tokens("東京都") == ["東京", "京都"]
    assert tokens("Python3の使い方") == ["Python3", "の使", "使い", "い方"]
    assert tokens("一") == ["一"]
    assert terms("这是第一句。Tests") == ["这是", "是第", "第一", "一句", "test"]
    assert tokens("오픈 소스, don't stop") == ["오픈", "소스", "don't", "stop"]  # spaced already


def test_given_an_index_written_before_character_pairs_when_opened_then_it_is_rebuilt(
    tmp_path: Path,
) -> None:
    path = tmp_path / "index.sqlite3"
    KeywordIndex(path).close()
    old = sqlite3.connect(path)
    old.execute("DROP TABLE cards_fts")
    old.execute(
        "CREATE VIRTUAL TABLE cards_fts USING fts5(text, heading, title, scope, "
        "tokenize = 'porter unicode61 remove_diacritics 2')"
    )
    for rowid, item in enumerate([card("fuji", FUJI), card("en", "the senate")], start=1):
        old.execute(
            "INSERT INTO cards (rowid, id, collection, source_id, payload) VALUES (?, ?, ?, ?, ?)",
            (rowid, item.id, "main", "s1", item.model_dump_json()),
        )
        old.execute(
            "INSERT INTO cards_fts (rowid, text, heading, title, scope) VALUES (?, ?, '', '', '')",
            (rowid, item.text),
        )
    old.execute("PRAGMA user_version = 0")
    old.commit()
    old.close()

    index = KeywordIndex(path)

    assert [h.card.id for h in index.search("一番高い山", ALL, 5)] == ["fuji"]
    assert [h.card.id for h in index.search("senate", ALL, 5)] == ["en"]
    index.close()
    # Opened again (now current), it keeps every card and its words.
    again = KeywordIndex(path)
    assert again.count() == 2
    assert [h.card.id for h in again.search("一番高い山", ALL, 5)] == ["fuji"]
