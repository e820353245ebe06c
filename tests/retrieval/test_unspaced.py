"""Chinese and Japanese, written without spaces, and Korean, whose words carry their particles:
their words are character pairs, wherever words are counted, and in an index written before
that (the contract has the search itself)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from groundwork.retrieval.base import SearchFilter
from groundwork.retrieval.keyword import KeywordIndex
from groundwork.text.terms import terms, tokens
from tests.retrieval.conftest import card

ALL = SearchFilter()
FUJI = "富士山は日本で一番高い山です。"
LICENSE = "프로젝트를 위한 라이선스를 고르세요."


def test_given_japanese_when_tokenised_then_each_run_is_its_character_pairs() -> None:
    assert tokens("東京都") == ["東京", "京都"]
    assert tokens("Python3の使い方") == ["Python3", "の使", "使い", "い方"]
    assert tokens("一") == ["一"]
    assert terms("这是第一句。Tests") == ["这是", "是第", "第一", "一句", "test"]
    assert tokens("오픈 소스, don't stop") == ["오픈", "소스", "don't", "stop"]


def test_given_korean_when_tokenised_then_each_word_is_its_pairs_apart_from_hanja() -> None:
    assert tokens("프로젝트를 공개") == ["프로", "로젝", "젝트", "트를", "공개"]
    assert set(tokens("프로젝트가")) & set(tokens("프로젝트를")) == {"프로", "로젝", "젝트"}
    assert tokens("韓國한국") == ["韓國", "한국"]  # no pair across the two scripts


@pytest.mark.parametrize("version", [0, 1], ids=["no pairs", "no Korean pairs"])
def test_given_an_index_written_before_character_pairs_when_opened_then_it_is_rebuilt(
    tmp_path: Path, version: int
) -> None:
    path = tmp_path / "index.sqlite3"
    KeywordIndex(path).close()
    old = sqlite3.connect(path)
    old.execute("DROP TABLE cards_fts")
    old.execute(
        "CREATE VIRTUAL TABLE cards_fts USING fts5(text, heading, title, scope, "
        "tokenize = 'porter unicode61 remove_diacritics 2')"
    )
    written = [card("fuji", FUJI), card("en", "the senate"), card("ko", LICENSE)]
    for rowid, item in enumerate(written, start=1):
        old.execute(
            "INSERT INTO cards (rowid, id, collection, source_id, payload) VALUES (?, ?, ?, ?, ?)",
            (rowid, item.id, "main", "s1", item.model_dump_json()),
        )
        old.execute(
            "INSERT INTO cards_fts (rowid, text, heading, title, scope) VALUES (?, ?, '', '', '')",
            (rowid, item.text),
        )
    old.execute(f"PRAGMA user_version = {version}")
    old.commit()
    old.close()

    index = KeywordIndex(path)

    assert [h.card.id for h in index.search("一番高い山", ALL, 5)] == ["fuji"]
    assert [h.card.id for h in index.search("senate", ALL, 5)] == ["en"]
    assert [h.card.id for h in index.search("라이선스가", ALL, 5)] == ["ko"]
    index.close()
    # Opened again (now current), it keeps every card and its words.
    again = KeywordIndex(path)
    assert again.count() == 3
    assert [h.card.id for h in again.search("一番高い山", ALL, 5)] == ["fuji"]
