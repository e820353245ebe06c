"""The embedded hybrid index: fusion, operating points, persistence, updates in place."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np
import pytest

from groundwork.domain.cards import Card, Hit
from groundwork.retrieval import keyword
from groundwork.retrieval.base import KEYWORD_WEIGHT, SearchFilter
from groundwork.retrieval.embedded import EmbeddedIndex, fuse
from groundwork.retrieval.keyword import KeywordIndex
from groundwork.retrieval.rerank import coverage, rerank
from groundwork.retrieval.sentence_vectors import encode
from tests.retrieval.conftest import HashingEmbedder, card

ALL = SearchFilter()


def test_given_two_rankings_when_fused_then_normalised_scores_add_up() -> None:
    fused = fuse([(1, 9.0), (2, 8.0), (3, 5.0)], [(2, 0.9), (3, 0.8), (4, 0.7)])

    keyword, vector = KEYWORD_WEIGHT, 1 - KEYWORD_WEIGHT
    assert dict(fused) == pytest.approx(
        {1: keyword, 2: keyword * 0.75 + vector, 3: vector * 0.5, 4: 0.0}
    )
    # The vector side weighs more: its second (3) passes the keyword side's first (1).
    assert [rowid for rowid, _ in fused] == [2, 3, 1, 4]


def test_given_cards_when_upserted_twice_then_each_card_is_held_once(index: EmbeddedIndex) -> None:
    cards = [card("a", "the senate and the house"), card("b", "the president")]
    index.upsert(cards)
    index.upsert([cards[0].model_copy(update={"text": "the senate alone"}), cards[1]])

    assert index.count() == 2
    assert index.search("senate", ALL, 5)[0].card.text == "the senate alone"


def test_given_a_deleted_source_when_searching_then_its_cards_and_vectors_are_gone(
    index: EmbeddedIndex,
) -> None:
    index.upsert([card("a", "the senate", source_id="x"), card("b", "the senate house")])

    assert index.delete_source("x") == 1
    assert [h.card.id for h in index.search("senate", ALL, 5)] == ["b"]
    assert [
        rowid for rowid, _ in index.vector_ranking(index._embedder.embed(["senate"])[0], ALL, 5)
    ]


def test_given_fast_quality_when_searching_then_no_model_is_called(
    index: EmbeddedIndex, embedder: HashingEmbedder
) -> None:
    index.upsert([card("a", "the senate")])
    calls = embedder.calls

    hits = index.search("senate", ALL, 5, quality="fast")

    assert [h.card.id for h in hits] == ["a"]
    assert embedder.calls == calls


def test_given_no_shared_word_when_searching_precisely_then_the_vector_side_still_finds_it(
    index: EmbeddedIndex,
) -> None:
    # The hashing embedder folds plurals, FTS5's porter stemmer does not see "senators" in
    # "xsenator"; a query word only the vector side knows stands in for a paraphrase.
    index.upsert([card("a", "upper chamber members"), card("b", "unrelated text about rivers")])

    assert index.search("members", ALL, 1, quality="precise")[0].card.id == "a"


def test_given_another_writer_when_searching_then_its_cards_are_seen(
    tmp_path: Path, embedder: HashingEmbedder
) -> None:
    reader = EmbeddedIndex(tmp_path / "index.sqlite3", embedder)
    reader.upsert([card("a", "first card about courts")])
    assert reader.search("courts", ALL, 5)

    writer = EmbeddedIndex(tmp_path / "index.sqlite3", embedder)
    writer.upsert([card("b", "second card about courts")])

    ids = {hit.card.id for hit in reader.search("courts", ALL, 5, quality="precise")}
    assert ids == {"a", "b"}
    vector_ids = reader.vector_ranking(embedder.embed(["courts"])[0], ALL, 5)
    assert len(vector_ids) == 2


def test_given_a_keyword_only_index_when_opened_as_embedded_then_vectors_are_backfilled(
    tmp_path: Path, embedder: HashingEmbedder
) -> None:
    KeywordIndex(tmp_path / "index.sqlite3").upsert([card("a", "treaties and alliances")])

    index = EmbeddedIndex(tmp_path / "index.sqlite3", embedder)

    assert index.vector_ranking(embedder.embed(["alliances"])[0], ALL, 5)[0][1] > 0.5


def test_given_a_batch_that_fails_midway_when_upserted_then_nothing_of_it_is_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    index = KeywordIndex(tmp_path / "index.sqlite3")
    index.upsert([card("a", "the senate")])
    real_row = keyword._fts_row

    def failing_row(written: Card) -> tuple[str, str, str, str]:
        if written.id == "b":
            raise RuntimeError("disk full")
        return real_row(written)

    monkeypatch.setattr(keyword, "_fts_row", failing_row)
    with pytest.raises(RuntimeError, match="disk full"):
        index.upsert([card("a", "the house"), card("b", "the house again")])
    monkeypatch.undo()

    assert index.count() == 1
    assert [h.card.text for h in index.search("senate", ALL, 5)] == ["the senate"]
    index.upsert([card("b", "the house")])  # the lock was released
    assert index.count() == 2


def test_given_candidates_when_covered_then_the_distinguishing_word_weighs_most() -> None:
    cards = [card("a", "the militia of the states"), card("b", "the states and congress")]

    share = coverage("militia states", cards)

    assert share[0] == pytest.approx(1.0)
    assert 0 < share[1] < 0.5


def test_given_a_candidate_whose_sentence_is_the_nearest_when_reranked_then_it_goes_first() -> None:
    """Two candidates alike by fused score and by the question's words (a question in its own
    words shares none): the one with the sentence nearest the question wins, unless no
    question vector of the sentences' model is given."""
    embedder = HashingEmbedder()
    question = embedder.embed(["seven sacraments baptism"], role="query")[0]

    def candidate(id_: str, sentences: list[str]) -> Hit:
        blob = encode(sentences, embedder.embed(sentences, role="passage"))
        return Hit(card=card(id_, " ".join(sentences)), score=0.5, sentence_vectors=blob)

    def ranked(question: np.ndarray | None) -> list[str]:
        hits = [
            candidate("far", ["Prayer lifts the mind.", "Grace is a gift."]),
            candidate("near", ["Prayer lifts the mind.", "Seven sacraments, baptism first."]),
        ]
        return [hit.card.id for hit in rerank("Wie viele Sakramente?", hits, question)]

    assert ranked(question) == ["near", "far"]
    assert ranked(None) == ["far", "near"]  # ties keep their order


def test_given_a_large_index_when_a_query_has_a_very_common_word_then_the_rare_ones_decide(
    index: EmbeddedIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("groundwork.retrieval.keyword._COMMON_MIN", 2)
    monkeypatch.setattr("groundwork.retrieval.keyword._COMMON_SHARE", 0.5)
    index.upsert([card(f"c{i}", "common words everywhere") for i in range(8)])
    index.upsert([card("rare", "common words and a rare treaty")])

    assert index._informative(["common", "treaty"]) == ["treaty"]
    assert index._informative(["common", "words"]) == ["common"]  # the rarest word stays
    assert index.search("common treaty", ALL, 1, quality="fast")[0].card.id == "rare"


def test_given_a_source_replaced_then_its_cards_and_vectors_are_the_new_ones_only(
    index: EmbeddedIndex,
) -> None:
    index.upsert([card("x-0", "the senate", source_id="x"), card("x-1", "the senate house",
                  source_id="x"), card("y-0", "the senate floor", source_id="y")])  # fmt: skip

    index.replace_source("x", [card("x-0", "the senate votes", source_id="x")])

    texts = {h.card.id: h.card.text for h in index.search("senate", ALL, 5)}
    assert texts == {"x-0": "the senate votes", "y-0": "the senate floor"}
    question = index._embedder.embed(["senate"])[0]
    assert len(index.vector_ranking(question, ALL, 5)) == 2


def test_given_a_swap_that_fails_midway_then_the_old_version_is_kept_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    index = KeywordIndex(tmp_path / "index.sqlite3")
    index.upsert([card("x-0", "the senate", source_id="x")])
    real_row = keyword._fts_row

    def failing_row(written: Card) -> tuple[str, str, str, str]:
        if written.id == "x-1":
            raise RuntimeError("disk full")
        return real_row(written)

    monkeypatch.setattr(keyword, "_fts_row", failing_row)
    with pytest.raises(RuntimeError, match="disk full"):
        index.replace_source(
            "x", [card("x-0", "the house", source_id="x"), card("x-1", "the hall", source_id="x")]
        )
    with pytest.raises(ValueError, match="belong to the source"):
        index.replace_source("x", [card("y-0", "the house", source_id="y")])

    assert [h.card.text for h in index.search("senate", ALL, 5)] == ["the senate"]
    assert index.count() == 1


def test_given_cards_written_then_each_hit_brings_its_sentences_vectors_as_stored(
    index: EmbeddedIndex, embedder: HashingEmbedder
) -> None:
    from groundwork.retrieval.sentence_vectors import decode, key

    text = "The senate meets in spring. It votes on every law. Who presides over it?"
    index.upsert([card("a", text), card("b", "rivers flood in the spring")])

    for quality in ("fast", "precise"):
        hit = index.search("senate votes", ALL, 1, quality=quality)[0]
        assert hit.sentence_vectors is not None
        stored = decode(hit.sentence_vectors, embedder.dimension)
        # every unit an answer reads by its vector, the question too (the unit after a
        # question is read as its answer)
        units = ["The senate meets in spring.", "It votes on every law.", "Who presides over it?"]
        assert set(stored) == {key(s) for s in units}
        expected = embedder.embed(units, role="passage")
        for sentence, vector in zip(units, expected, strict=True):
            assert float(stored[key(sentence)] @ vector) > 0.999


def test_given_a_card_with_a_heading_when_written_then_its_heading_is_stored_as_a_sentence(
    index: EmbeddedIndex, embedder: HashingEmbedder
) -> None:
    from groundwork.retrieval.sentence_vectors import decode, key

    heading = "Why do people open source their work?"
    index.upsert([card("a", "Openness lets anyone learn from the code.", heading=heading)])

    (hit,) = index.search("openness code", ALL, 1, quality="fast")

    assert hit.sentence_vectors is not None
    stored = decode(hit.sentence_vectors, embedder.dimension)
    assert set(stored) == {key("Openness lets anyone learn from the code."), key(heading)}
    (expected,) = embedder.embed([heading], role="passage")
    assert float(stored[key(heading)] @ expected) > 0.999


def test_given_an_index_from_before_the_model_was_recorded_then_it_holds_minilms_vectors(
    tmp_path: Path, embedder: HashingEmbedder
) -> None:
    from groundwork.embeddings.models import MINILM
    from groundwork.retrieval.base import IndexEmbedderMismatch

    path = tmp_path / "index.sqlite3"
    EmbeddedIndex(path, embedder).upsert([card("a", "the senate")])
    old = KeywordIndex(path)
    old._db.execute("DROP TABLE index_meta")
    old.close()

    reopened = EmbeddedIndex(path, embedder)

    assert reopened.built_by() == MINILM
    with pytest.raises(IndexEmbedderMismatch):
        reopened.search("senate", ALL, 1, quality="fast")
    assert [hit.card.id for hit in KeywordIndex(path).search("senate", ALL, 1)] == ["a"]


def test_given_a_word_index_written_before_authors_were_searched_when_opened_then_they_are(
    tmp_path: Path,
) -> None:
    """Given a word index of the format before the author stood beside the title, when the
    index is opened, then it is rebuilt from its cards and a question naming the author finds
    the card."""
    path = tmp_path / "index.sqlite3"
    written = KeywordIndex(path)
    written.upsert([card("jay", "foreign force and influence", author="Jay")])
    written.close()
    old = sqlite3.connect(path)
    old.execute("UPDATE cards_fts SET title = ''")
    old.execute("PRAGMA user_version = 2")
    old.commit()
    old.close()

    hits = KeywordIndex(path).search("What did Jay say?", ALL, 5)

    assert [hit.card.id for hit in hits] == ["jay"]
