"""The embedded index keeps each card's language, filters on it, and migrates old files."""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING

import pytest

from groundwork.answer.language import search_in_language
from groundwork.retrieval.base import SearchFilter
from groundwork.retrieval.embedded import EmbeddedIndex
from groundwork.retrieval.keyword import KeywordIndex
from tests.retrieval.conftest import HashingEmbedder, card

if TYPE_CHECKING:
    from pathlib import Path

    from groundwork.retrieval.base import Quality

ALL = SearchFilter(collections=["main"])
PARALLEL = [
    ("en-1", "en", "en", "There are seven sacraments: Baptism, Confirmation and the Eucharist."),
    ("de-1", "de", "de", "Es gibt sieben Sakramente: Taufe, Firmung und die Eucharistie."),
    ("en-2", "en", "en", "Prayer is the lifting up of our minds and hearts to God."),
    ("de-2", "de", "de", "Das Gebet ist die Erhebung unseres Geistes und Herzens zu Gott."),
]


def parallel(index: KeywordIndex) -> None:
    index.upsert([card(i, text, source_id=s, language=lang) for i, s, lang, text in PARALLEL])


@pytest.mark.parametrize("quality", ["fast", "precise"])
def test_given_parallel_cards_when_asked_in_a_language_then_only_its_cards_come_back(
    index: EmbeddedIndex, quality: Quality
) -> None:
    parallel(index)

    german = search_in_language(index, "Sakramente", ALL, 4, quality=quality, language="de")
    english = search_in_language(index, "sacraments", ALL, 4, quality=quality, language="en")

    assert german[0].card.id == "de-1"
    assert {h.card.language for h in german} == {"de"}
    assert english[0].card.id == "en-1"
    assert {h.card.language for h in english} == {"en"}


def test_given_no_card_in_the_language_when_asked_then_the_whole_scope_answers(
    index: EmbeddedIndex,
) -> None:
    parallel(index)

    hits = search_in_language(index, "sacraments", ALL, 4, quality="precise", language="fr")

    assert hits[0].card.id == "en-1"
    assert {h.card.language for h in hits} == {"en", "de"}


def test_given_a_filter_that_allows_nothing_when_searching_then_no_question_is_embedded(
    index: EmbeddedIndex, embedder: HashingEmbedder
) -> None:
    parallel(index)
    calls = embedder.calls

    assert index.search("sacraments", ALL.model_copy(update={"language": "fr"}), 4) == []
    assert embedder.calls == calls


def old_index(path: Path) -> None:
    """An index file as written before cards had a language: no column, none in payloads."""
    index = KeywordIndex(path)
    parallel(index)
    index.upsert([card("en-3", "Baptism.", source_id="en", language=None)])
    index.close()
    db = sqlite3.connect(path)
    db.execute("DROP INDEX cards_language")
    db.execute("ALTER TABLE cards DROP COLUMN language")
    db.execute("UPDATE cards SET payload = json_remove(payload, '$.language')")
    db.commit()
    db.close()


def test_given_an_index_from_before_languages_when_opened_then_cards_are_given_one(
    tmp_path: Path, embedder: HashingEmbedder
) -> None:
    old_index(tmp_path / "index.sqlite3")

    index = EmbeddedIndex(tmp_path / "index.sqlite3", embedder)

    rows = dict(index._db.execute("SELECT id, language FROM cards").fetchall())
    # "Baptism." alone is too short to tell: it takes its source's language.
    assert rows == {"en-1": "en", "de-1": "de", "en-2": "en", "de-2": "de", "en-3": "en"}
    question = "Gebet, Erhebung des Geistes"  # words the hashing embedder's vectors share too
    german = index.search(question, ALL.model_copy(update={"language": "de"}), 4)
    assert german[0].card.id == "de-2"
    assert {h.card.language for h in german} == {"de"}


def test_given_a_migration_that_fails_midway_when_opened_again_then_it_completes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "index.sqlite3"
    old_index(path)

    def killed(*_: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr("groundwork.ingest.language.card_languages", killed)
    with pytest.raises(KeyboardInterrupt):
        KeywordIndex(path)
    columns = {row[1] for row in sqlite3.connect(path).execute("PRAGMA table_info(cards)")}
    assert "language" not in columns
    monkeypatch.undo()

    index = KeywordIndex(path)
    assert index._db.execute("SELECT count(*) FROM cards WHERE language IS NULL").fetchone() == (0,)
