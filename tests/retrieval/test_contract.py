"""The retrieval contract, run against the embedded index and a live OpenSearch node alike.

OpenSearch runs where ``GROUNDWORK_OPENSEARCH_URL`` names a node (``scripts/test.sh`` starts one
with ``scripts/services.sh``); ``GROUNDWORK_OPENSEARCH_AUTH``/``_REGION`` sign for a real domain
and ``GROUNDWORK_OPENSEARCH_KNN_ENGINE`` picks the engine (the local node has no faiss). Without
a node the OpenSearch cases skip, except in CI (``CI=true``), where they fail.
"""

from __future__ import annotations

import os
import uuid
import zlib
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

from groundwork.embeddings.base import Embedder, EmbeddingModel, Role, Terms
from groundwork.retrieval import hubness, latent_terms
from groundwork.retrieval.base import (
    IndexEmbedderMismatch,
    Quality,
    Restriction,
    Retriever,
    SearchFilter,
)
from groundwork.retrieval.embedded import EmbeddedIndex, passage_text
from groundwork.retrieval.sentence_vectors import decode, key
from groundwork.text.terms import terms
from tests.retrieval.conftest import HashingEmbedder, card

QUALITIES: list[Quality] = ["fast", "precise"]
ALL = SearchFilter()


#: What the embedder reads as the same word: a paraphrase, and German, read as a multilingual
#: model reads it, which only the vector side can match.
SYNONYMS = {"automobile": "car", "sieben": "seven", "sakramente": "sacraments"}


class SynonymEmbedder(HashingEmbedder):
    """Sees "automobile" as "car" and "sieben" as "seven"."""

    def embed(self, texts: Sequence[str], *, role: Role = "passage") -> npt.NDArray[np.float32]:
        read = []
        for text in texts:
            for word, meaning in SYNONYMS.items():
                text = text.replace(word, meaning)
            read.append(text)
        return super().embed(read, role=role)


@pytest.fixture
def embedder() -> HashingEmbedder:
    return SynonymEmbedder()


#: Opens the test's index with an embedder of its cards, and of its sentences (by default the
#: same, as with every embedded model; with Bedrock, the embedded model), writing the cards'
#: latent terms unless ``terms=False``.
Backend = Callable[..., Retriever]


@pytest.fixture(params=["embedded", "opensearch"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backend]:
    """Opens the test's index (the same one each time) with the given embedders."""
    if request.param == "embedded":
        yield lambda embedder, sentences=None, terms=True: EmbeddedIndex(
            tmp_path / "index.sqlite3", embedder, sentences, terms=terms
        )
        return
    from groundwork.retrieval.opensearch import OpenSearchIndex

    client = request.getfixturevalue("opensearch_client")
    name = f"groundwork-test-{uuid.uuid4().hex[:12]}"
    engine = os.environ.get("GROUNDWORK_OPENSEARCH_KNN_ENGINE", "faiss")
    auth = os.environ.get("GROUNDWORK_OPENSEARCH_AUTH", "none")

    def open_index(
        embedder: Embedder, sentences: Embedder | None = None, terms: bool = True
    ) -> Retriever:
        return OpenSearchIndex(
            client,
            embedder,
            sentences=sentences,
            index=name,
            pipeline=name,
            serverless=auth == "aoss",
            engine=engine,  # type: ignore[arg-type]
            replicas=0,  # one node: a replica could never be placed
            refresh=auth != "aoss",
            reindex_dir=tmp_path / "reindex",
            terms=terms,
        )

    try:
        yield open_index
    finally:
        client.indices.delete(index=name, params={"ignore_unavailable": "true"})
        client.transport.perform_request(
            "DELETE", f"/_search/pipeline/{name}", params={"ignore": 404}
        )


@pytest.fixture
def retriever(backend: Callable[[Embedder], Retriever], embedder: HashingEmbedder) -> Retriever:
    return backend(embedder)


def ids(
    retriever: Retriever, query: str, where: SearchFilter, k: int, quality: Quality
) -> list[str]:
    return [hit.card.id for hit in retriever.search(query, where, k, quality=quality)]


DISTRACTORS = [card(f"d{i}", "taxes taxes taxes on imports and duties") for i in range(20)]
FILLED = [
    *DISTRACTORS,
    card("tagged", "a tax on imports", tags=["finance"], source_id="s2"),
    card("other", "a tax on imports", collection="elsewhere"),
    card("q1", "revenue from taxes in spring", period_start="2024-01", period_end="2024-03"),
    card("q3", "revenue from taxes in autumn", period_start="2024-07", period_end="2024-09"),
    card("timeless", "what a tax is"),
]


@pytest.mark.parametrize("quality", QUALITIES)
def test_given_nothing_written_when_searching_then_nothing_is_found(
    retriever: Retriever, quality: Quality
) -> None:
    assert retriever.search("tax", ALL, 5, quality=quality) == []
    assert retriever.count() == 0


def test_given_ingested_cards_when_counted_then_each_collection_holds_its_own(
    retriever: Retriever,
) -> None:
    retriever.upsert(FILLED)

    assert retriever.count() == len(FILLED)
    assert retriever.count("elsewhere") == 1
    assert retriever.count("main") == len(FILLED) - 1


@pytest.mark.parametrize("quality", QUALITIES)
def test_given_a_card_written_twice_when_searching_then_it_is_held_once_in_its_new_text(
    retriever: Retriever, quality: Quality
) -> None:
    retriever.upsert([card("a", "the senate and the house"), card("b", "the president")])
    retriever.upsert([card("a", "the senate alone")])

    hits = retriever.search("senate", ALL, 5, quality=quality)

    assert retriever.count() == 2
    assert (hits[0].card.id, hits[0].card.text) == ("a", "the senate alone")
    assert [hit.card.id for hit in hits].count("a") == 1


@pytest.mark.parametrize("quality", QUALITIES)
def test_given_a_reingested_source_when_replaced_then_only_its_new_cards_are_found(
    retriever: Retriever, quality: Quality
) -> None:
    retriever.upsert([card("a", "the old senate rules"), card("b", "the senate stale card"),
                      card("x", "the senate elsewhere", source_id="s2")])  # fmt: skip

    retriever.replace_source("s1", [card("a", "the new senate rules"), card("c", "senate added")])

    hits = retriever.search("senate", ALL, 10, quality=quality)
    assert {hit.card.id: hit.card.text for hit in hits} == {
        "a": "the new senate rules", "c": "senate added", "x": "the senate elsewhere"}  # fmt: skip
    assert retriever.count() == 3


def test_given_a_source_replaced_by_nothing_when_counted_then_it_is_gone(
    retriever: Retriever,
) -> None:
    retriever.upsert([card("a", "one"), card("x", "two", source_id="s2")])

    retriever.replace_source("s1", [])

    assert retriever.count() == 1


@pytest.mark.parametrize("quality", QUALITIES)
def test_given_a_deleted_source_when_searching_then_its_cards_are_gone(
    retriever: Retriever, quality: Quality
) -> None:
    retriever.upsert([card("a", "the senate", source_id="x"), card("b", "the senate house"),
                      card("c", "the senate chamber", source_id="x")])  # fmt: skip

    assert retriever.delete_source("x") == 2
    assert ids(retriever, "senate", ALL, 5, quality) == ["b"]
    assert retriever.delete_source("x") == 0


@pytest.mark.parametrize("quality", QUALITIES)
@pytest.mark.parametrize(
    ("where", "expected"),
    [
        (SearchFilter(collections=["elsewhere"]), {"other"}),
        (SearchFilter(collections=["main"], tags=["finance"]), {"tagged"}),
        (SearchFilter(source_ids=["s2"]), {"tagged"}),
        (SearchFilter(card_ids=["q1", "timeless"]), {"q1", "timeless"}),
        (SearchFilter(collections=["main"], period_start="2024-02", period_end="2024-04-15"),
         {"q1", "timeless", *(d.id for d in DISTRACTORS), "tagged"}),
    ],
)  # fmt: skip
def test_given_a_filter_when_searching_then_only_and_all_allowed_cards_come_back(
    retriever: Retriever, where: SearchFilter, expected: set[str], quality: Quality
) -> None:
    retriever.upsert(FILLED)

    assert set(ids(retriever, "tax imports revenue", where, 30, quality)) == expected


def test_given_many_better_matches_outside_the_filter_when_searching_precisely_then_k_come_back(
    retriever: Retriever,
) -> None:
    retriever.upsert([*FILLED, *(card(f"t{i}", f"tax number {i}", tags=["t"]) for i in range(6))])

    found = ids(retriever, "taxes imports duties", SearchFilter(tags=["t"]), 5, "precise")

    assert len(found) == 5
    assert all(card_id.startswith("t") for card_id in found)


def test_given_fast_quality_when_searching_then_keywords_match_and_no_model_is_called(
    retriever: Retriever, embedder: HashingEmbedder
) -> None:
    retriever.upsert([card("car", "a car on the road"), card("river", "rivers flood in spring")])
    calls = embedder.calls

    assert ids(retriever, "flooding rivers", ALL, 5, "fast") == ["river"]
    assert ids(retriever, "automobile", ALL, 5, "fast") == []
    assert embedder.calls == calls


@pytest.mark.parametrize("quality", QUALITIES)
def test_given_sections_by_two_authors_when_a_question_names_one_then_its_section_ranks_first(
    retriever: Retriever, quality: Quality
) -> None:
    """Given two sections on the same subject by different authors, when a question names one
    of them ("according to Jay"), then that author's section ranks first, on either backend."""
    retriever.upsert(
        [
            card("hamilton", "war between the states would follow disunion", author="Hamilton"),
            card("jay", "war between the states would follow disunion", author="Jay"),
        ]
    )

    found = ids(retriever, "why would war follow disunion, according to Jay?", ALL, 2, quality)

    assert found[0] == "jay"


def test_given_japanese_when_searching_by_keywords_then_character_pairs_match(
    retriever: Retriever,
) -> None:
    """Given cards in Japanese, written without spaces, when searched by keywords alone, then a
    question's pairs of characters are its words: "東京" (Tokyo) is not "京都" (Kyoto), though
    both are written with 京, and a question phrased unlike any card still finds its card."""
    retriever.upsert(
        [
            card("tokyo", "東京は日本の首都です。"),
            card("kyoto", "京都は古い都です。"),
            card("fuji", "富士山は日本で一番高い山です。"),
        ]
    )

    assert ids(retriever, "東京", ALL, 5, "fast") == ["tokyo"]
    assert ids(retriever, "日本で一番高い山はどれですか？", ALL, 5, "fast")[0] == "fuji"


def test_given_korean_when_searching_by_keywords_then_a_word_matches_with_other_particles(
    retriever: Retriever,
) -> None:
    """Given cards in Korean, whose words carry their particles ("프로젝트를", the project as
    object), when searched by keywords alone, then a question with the same word under another
    particle ("프로젝트가", as subject) finds the card, and only that one."""
    retriever.upsert(
        [
            card("license", "공개하기 전에 프로젝트를 위한 라이선스를 고르세요."),
            card("meetup", "밋업에서 발표하면 사람들을 만날 수 있습니다."),
        ]
    )

    assert ids(retriever, "어떤 라이선스가 좋을까요?", ALL, 5, "fast") == ["license"]


def test_given_a_paraphrase_when_searching_precisely_then_the_vector_side_finds_it(
    retriever: Retriever,
) -> None:
    retriever.upsert([card("car", "a car on the road"), card("river", "rivers flood in spring")])

    assert ids(retriever, "automobile", ALL, 1, "precise") == ["car"]


def test_given_both_sides_when_searching_precisely_then_a_card_both_find_ranks_first(
    retriever: Retriever,
) -> None:
    retriever.upsert([
        card("both", "car repair shop"),
        card("keyword", "repair of old stone bridges and roads"),
        card("vector", "a red car"),
        card("neither", "rivers flood in spring"),
    ])  # fmt: skip

    precise = ids(retriever, "automobile repair", ALL, 3, "precise")

    assert precise[0] == "both"
    assert set(precise) == {"both", "keyword", "vector"}
    assert set(ids(retriever, "automobile repair", ALL, 3, "fast")) == {"both", "keyword"}


PARALLEL = [
    card("en", "there are seven sacraments", source_id="en", language="en"),
    card("de", "es gibt sieben sakramente", source_id="de", language="de"),
    card("unknown", "sakramente sacraments", source_id="x"),
]


@pytest.mark.parametrize("quality", QUALITIES)
def test_given_cards_in_two_languages_when_filtered_to_one_then_only_its_cards_come_back(
    retriever: Retriever, quality: Quality
) -> None:
    retriever.upsert(PARALLEL)

    german = SearchFilter(language="de")
    assert ids(retriever, "sakramente sacraments", german, 5, quality) == ["de"]
    assert [h.card.language for h in retriever.search("sieben", german, 5, quality=quality)] == [
        "de"
    ]


@pytest.mark.parametrize("quality", QUALITIES)
def test_given_a_language_sharing_no_word_with_the_question_when_preferred_then_found_by_meaning(
    retriever: Retriever, quality: Quality
) -> None:
    from groundwork.answer.language import search_in_language

    retriever.upsert(PARALLEL)

    german = search_in_language(retriever, "sieben", ALL, 5, quality=quality, language="de")
    asked_in_english = search_in_language(
        retriever, "seven", ALL, 5, quality=quality, language="de"
    )

    assert [hit.card.id for hit in german] == ["de"]
    assert [hit.card.id for hit in asked_in_english] == ["de"]


@pytest.mark.parametrize("quality", QUALITIES)
def test_given_a_language_no_card_is_in_when_preferred_then_the_scope_answers(
    retriever: Retriever, quality: Quality
) -> None:
    from groundwork.answer.language import search_in_language

    retriever.upsert(PARALLEL)

    hits = search_in_language(retriever, "seven", ALL, 5, quality=quality, language="fr")

    assert hits[0].card.id == "en"


#: English cards: the answer, and a passage sharing only a name with the German question.
NAMED = [
    card("answer", "There are seven sacraments.", source_id="a", language="en"),
    card("named", "The Baltimore catechism was printed in 1885.", source_id="b", language="en"),
]
#: Shares "Baltimore" with the named card, and its meaning with the answer.
GERMAN_QUESTION = "Nennt der Baltimore Katechismus sieben sakramente?"


@pytest.mark.parametrize("quality", QUALITIES)
def test_given_no_card_in_the_questions_language_when_asked_then_searched_by_meaning_alone(
    retriever: Retriever, quality: Quality
) -> None:
    from groundwork.answer.language import search_in_language

    retriever.upsert(NAMED)

    hits = search_in_language(retriever, GERMAN_QUESTION, ALL, 5, quality=quality, language="de")

    assert [hit.card.id for hit in hits][:1] == ["answer"]
    assert [hit.card.id for hit in hits] == [
        hit.card.id for hit in retriever.search(GERMAN_QUESTION, ALL, 5, lexical=False)
    ]


@pytest.mark.parametrize("quality", QUALITIES)
def test_given_cards_of_unknown_language_when_asked_in_another_then_the_words_still_count(
    retriever: Retriever, quality: Quality
) -> None:
    from groundwork.answer.language import search_in_language

    retriever.upsert([c.model_copy(update={"language": None}) for c in NAMED])

    hits = search_in_language(retriever, GERMAN_QUESTION, ALL, 5, quality=quality, language="de")

    assert [hit.card.id for hit in hits] == [
        hit.card.id for hit in retriever.search(GERMAN_QUESTION, ALL, 5, quality=quality)
    ]
    assert "named" in [hit.card.id for hit in hits]


def test_given_a_question_when_searched_by_meaning_alone_then_a_card_sharing_no_word_is_found(
    retriever: Retriever,
) -> None:
    retriever.upsert(NAMED)

    fast = retriever.search("sakramente?", ALL, 5, quality="fast")
    by_meaning = retriever.search("sieben sakramente", ALL, 5, quality="fast", lexical=False)

    assert fast == []
    assert [hit.card.id for hit in by_meaning][:1] == ["answer"]


class NarrowEmbedder(SynonymEmbedder):
    """Another model: the same words, another space (32 dimensions)."""

    model = EmbeddingModel("narrow-hashing", 32)


def test_given_sentences_of_another_model_when_searched_by_meaning_then_the_cards_rank(
    backend: Backend, embedder: HashingEmbedder
) -> None:
    retriever = backend(embedder, NarrowEmbedder())
    retriever.upsert(NAMED)

    hits = retriever.search("sieben sakramente", ALL, 5, lexical=False)

    assert [hit.card.id for hit in hits][:1] == ["answer"]


class ConceptEmbedder(HashingEmbedder):
    """A model whose vectors see nothing (every text the same direction) and whose latent
    terms are a text's words, read as their meaning: only the terms tell its cards apart."""

    model = EmbeddingModel("concepts", 64)

    def __init__(self, *, has_terms: bool = True) -> None:
        super().__init__()
        self.has_terms = has_terms
        self.read_as_terms: list[str] = []

    def embed(self, texts: Sequence[str], *, role: Role = "passage") -> npt.NDArray[np.float32]:
        self.calls += 1
        blind = np.zeros((len(texts), self.dimension), dtype=np.float32)
        blind[:, 0] = 1
        return blind

    def latent_terms(self, texts: Sequence[str]) -> list[Terms] | None:
        if not self.has_terms:
            return None
        self.read_as_terms += texts
        read = []
        for text in texts:
            for word, meaning in SYNONYMS.items():
                text = text.replace(word, meaning)
            found = sorted({zlib.crc32(term.encode()) % 16_384 for term in terms(text)})
            read.append((np.array(found, np.int32), np.ones(len(found), np.float32)))
        return read


#: The answer written last, so that cards alike to the vectors would rank it last.
CONCEPTS = [
    NAMED[1],
    card("other", "A catechism teaches by questions.", source_id="c", language="en"),
    NAMED[0],
]


def test_given_cards_with_latent_terms_when_searched_by_meaning_then_shared_terms_rank_them(
    backend: Backend,
) -> None:
    concepts = ConceptEmbedder()
    retriever = backend(concepts)
    retriever.upsert(CONCEPTS)

    hits = retriever.search("sieben sakramente", ALL, 3, lexical=False)

    assert [hit.card.id for hit in hits][:1] == ["answer"]
    assert "sieben sakramente" in concepts.read_as_terms
    for hit in hits:
        assert hit.latent_terms
        (written,) = concepts.latent_terms([passage_text(hit.card)]) or []
        np.testing.assert_array_equal(latent_terms.decode(hit.latent_terms)[0], written[0])


def test_given_a_card_of_unknown_language_when_searched_by_meaning_then_no_terms_are_asked_for(
    backend: Backend,
) -> None:
    """The answer searches such a scope again with words (``answer.language``): the question's
    terms would be a pass of the model for nothing."""
    concepts = ConceptEmbedder()
    retriever = backend(concepts)
    retriever.upsert([*CONCEPTS, card("unknown", "Seven sacraments.", source_id="d")])

    hits = retriever.search("sieben sakramente", ALL, 4, lexical=False)

    assert len(hits) == 4
    assert all(hit.latent_terms for hit in hits)
    assert "sieben sakramente" not in concepts.read_as_terms


def test_given_latent_terms_turned_off_when_cards_are_written_then_none_are_computed(
    backend: Backend,
) -> None:
    """``GROUNDWORK_LATENT_TERMS=false``: writing skips the head's pass over each card, and the
    search by meaning ranks by the vectors alone."""
    concepts = ConceptEmbedder()
    backend(concepts, terms=False).upsert(CONCEPTS)

    hits = backend(concepts, terms=False).search("sieben sakramente", ALL, 3, lexical=False)

    assert len(hits) == 3
    assert not any(hit.latent_terms for hit in hits)
    assert concepts.read_as_terms == []


def test_given_cards_written_without_latent_terms_when_reindexed_then_their_terms_count(
    backend: Backend,
) -> None:
    """Cards written before cards had terms (the same model, no head) are ranked by their
    vectors alone, the question's terms not even computed, until a reindex gives them terms."""
    backend(ConceptEmbedder(has_terms=False)).upsert(CONCEPTS)
    concepts = ConceptEmbedder()

    before = backend(concepts).search("sieben sakramente", ALL, 3, lexical=False)
    asked_before = list(concepts.read_as_terms)
    assert backend(concepts).reindex() == len(CONCEPTS)
    after = backend(concepts).search("sieben sakramente", ALL, 3, lexical=False)

    assert len(before) == 3
    assert not any(hit.latent_terms for hit in before)
    assert asked_before == []
    assert [hit.card.id for hit in after][:1] == ["answer"]
    assert all(hit.latent_terms for hit in after)


#: The table's vectors: the question is the first axis.
TABLE = {
    "seven sacraments": [1.0, 0.0, 0.0, 0.0],
    "There are seven sacraments.": [0.90, 0.0, float(np.sqrt(1 - 0.90**2)), 0.0],
    # Nearer the question, and as near everyday sentences: near anything.
    "alice bob carol": [0.95, float(np.sqrt(1 - 0.95**2)), 0.0, 0.0],
    "everyday": [0.0, 1.0, 0.0, 0.0],
}


class TableEmbedder(Embedder):
    """Reads each text as the vector ``TABLE`` gives it."""

    model = EmbeddingModel("table", 4)

    def embed(self, texts: Sequence[str], *, role: Role = "passage") -> npt.NDArray[np.float32]:
        return np.array([TABLE[text] for text in texts], dtype=np.float32)


def test_given_a_model_with_a_background_when_searched_by_meaning_then_a_hub_is_discounted(
    backend: Backend, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each card's own vector reaches the search by meaning, which compares it with the model's
    everyday sentences (``retrieval.hubness``)."""
    table = TableEmbedder()
    retriever = backend(table, terms=False)
    retriever.upsert(
        [card("answer", "There are seven sacraments."), card("hub", "alice bob carol")]
    )

    plain = retriever.search("seven sacraments", ALL, 2, lexical=False)
    everyday = table.embed(["everyday"] * 10)
    monkeypatch.setattr(
        hubness, "background", lambda model: everyday if model == table.model else None
    )
    discounted = retriever.search("seven sacraments", ALL, 2, lexical=False)

    assert [hit.card.id for hit in plain] == ["hub", "answer"]
    assert [hit.card.id for hit in discounted] == ["answer", "hub"]


class FailingEmbedder(NarrowEmbedder):
    """Stops, as a killed process would, at its ``fail_at``-th call."""

    def __init__(self, fail_at: int) -> None:
        super().__init__()
        self.fail_at = fail_at

    def embed(self, texts: Sequence[str], *, role: Role = "passage") -> npt.NDArray[np.float32]:
        if self.calls + 1 == self.fail_at:
            raise KeyboardInterrupt("killed")
        return super().embed(texts, role=role)


def test_given_an_index_built_by_one_model_when_another_searches_or_writes_then_it_is_refused(
    backend: Callable[[Embedder], Retriever], embedder: HashingEmbedder
) -> None:
    backend(embedder).upsert(FILLED)
    other = backend(NarrowEmbedder())

    for quality in QUALITIES:
        with pytest.raises(IndexEmbedderMismatch) as refused:
            other.search("tax", ALL, 5, quality=quality)
    with pytest.raises(IndexEmbedderMismatch):
        other.upsert([card("new", "a new tax")])

    assert refused.value.code == "index.embedder_mismatch"
    assert refused.value.built_by == embedder.model
    assert ids(backend(embedder), "tax on imports", ALL, 2, "precise")[0] in {"tagged", "other"}


class OtherSentenceEmbedder(SynonymEmbedder):
    """Another model for the sentences, at the same dimension: its cosines mean nothing to
    questions embedded by the first."""

    model = EmbeddingModel("other-hashing", 64)


def test_given_cards_and_sentences_embedded_by_two_models_then_neither_is_mixed_with_another(
    backend: Backend, embedder: HashingEmbedder
) -> None:
    """As with Bedrock: a cloud model embeds the cards, the embedded model their sentences."""
    cloud = NarrowEmbedder()
    backend(cloud, embedder).upsert(FILLED)

    (hit,) = backend(cloud, embedder).search("a tax on imports", ALL, 1, quality="precise")
    changed_sentences = backend(cloud, OtherSentenceEmbedder())
    same_for_both = backend(cloud)

    assert hit.sentence_vectors
    stored = decode(hit.sentence_vectors, embedder.dimension)
    (expected,) = embedder.embed([hit.card.text], role="passage")
    assert float(stored[key(hit.card.text)] @ expected) > 0.999
    refusals = []
    for refused_by in (changed_sentences, same_for_both):
        with pytest.raises(IndexEmbedderMismatch) as refused:
            refused_by.search("tax", ALL, 5, quality="fast")
        refusals.append((refused.value.built_by, refused.value.configured))
    # Each names the sentences' model that built them, not the cards'.
    assert refusals == [
        (embedder.model, OtherSentenceEmbedder.model),
        (embedder.model, cloud.model),
    ]
    assert backend(embedder).reindex() == len(FILLED)
    assert ids(backend(embedder), "tax on imports", ALL, 2, "precise")[0] in {"tagged", "other"}
    with pytest.raises(IndexEmbedderMismatch):
        backend(cloud, embedder).search("tax", ALL, 5, quality="fast")


def test_given_a_reindex_killed_midway_when_run_again_then_it_ends_with_every_card_re_embedded(
    backend: Callable[[Embedder], Retriever],
    embedder: HashingEmbedder,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from groundwork.retrieval import embedded, opensearch

    monkeypatch.setattr(embedded, "EMBED_BATCH", 4)
    monkeypatch.setattr(opensearch, "REINDEX_BATCH", 4)
    backend(embedder).upsert([*FILLED, card("car", "the automobile was repaired")])
    failing = FailingEmbedder(fail_at=5)  # two calls per batch: a passage's, its sentences'

    with pytest.raises(KeyboardInterrupt):
        backend(failing).reindex()
    resumed = NarrowEmbedder()
    seen: list[tuple[int, int]] = []
    total = backend(resumed).reindex(progress=lambda done, all_: seen.append((done, all_)))

    assert total == len(FILLED) + 1
    assert seen[-1] == (total, total)
    batches = -(-total // 4)
    assert resumed.calls == 2 * (batches - 2)  # the two batches the first run embedded stayed
    after = backend(NarrowEmbedder())
    assert ids(after, "car repair", ALL, 1, "precise") == ["car"]
    assert after.count() == total
    with pytest.raises(IndexEmbedderMismatch):
        backend(embedder).search("car", ALL, 1, quality="fast")


def test_given_cards_with_and_without_locations_when_read_then_they_round_trip_and_are_counted(
    retriever: Retriever,
) -> None:
    """Given a card that knows where it is in its PDF and one written before cards did, when
    searched, then the location comes back as written, and the old one is counted as
    unlocated in its collection."""
    located = card("p2", "the reading room closes at eight", char_start=40, char_end=72,
                   page=2, page_end=2, heading_path=["Hours", "Reading room"])  # fmt: skip
    old = card("old", "the reading room was rebuilt", collection="archive")
    retriever.upsert([located, old])

    (hit,) = retriever.search("closes eight", SearchFilter(collections=["main"]), 1)

    assert hit.card == located
    assert retriever.unlocated() == {"archive": 1}


def test_given_cards_of_several_sources_when_counted_by_source_then_each_has_its_own(
    retriever: Retriever,
) -> None:
    retriever.upsert(FILLED)

    assert retriever.source_cards("main") == {"s1": 23, "s2": 1}
    assert retriever.source_cards("elsewhere") == {"s1": 1}
    assert retriever.source_cards("nothing") == {}


def test_given_a_wiped_index_when_the_files_are_ingested_again_then_their_cards_come_back(
    request: pytest.FixtureRequest, retriever: Retriever, tmp_path: Path
) -> None:
    """The node lost its data (the index deleted under a running process): the records still
    say the file is ingested, unchanged, yet the re-ingest writes its cards again, into an
    index made again with its own mapping (a precise, hybrid search works)."""
    from groundwork.ingest.pipeline import Ingestor
    from groundwork.storage.sqlite import SQLiteStorage

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "tides.md").write_text("# Tides\n\nSpring tides come twice a month.\n")
    ingestor = Ingestor(retriever, SQLiteStorage(tmp_path / "state.sqlite3"))
    ingestor.ingest([docs / "tides.md"], collection="c", root=docs)
    _wipe(request, retriever, tmp_path)

    missing = ingestor.check("c")
    report = ingestor.ingest([docs / "tides.md"], collection="c", root=docs)

    assert [p.problem for p in missing] == ["the index holds 0 of its 1 passages: ingest it again"]
    assert (report.unchanged, report.updated, report.cards) == (0, 1, 1)
    for quality in QUALITIES:
        hits = retriever.search("spring tides", SearchFilter(collections=["c"]), 3, quality=quality)
        assert [hit.card.text for hit in hits] == ["Spring tides come twice a month."]
    assert ingestor.check("c") == []


def _wipe(request: pytest.FixtureRequest, retriever: Retriever, tmp_path: Path) -> None:
    if isinstance(retriever, EmbeddedIndex):
        with retriever._lock:
            retriever._db.execute("DELETE FROM cards_fts")
            retriever._db.execute("DELETE FROM cards")
        return
    client = request.getfixturevalue("opensearch_client")
    client.indices.delete(index=retriever._index)  # type: ignore[attr-defined]


# Visibility: a user granted part of a collection (docs/access.md). The restriction is part of
# the query on both sides of the search, so hidden cards are neither returned nor counted.
HANDBOOK = [
    *(card(f"board{i}", "merger merger merger of the cooperative", collection="handbook",
           source_id="minutes", tags=["board"]) for i in range(8)),
    card("public", "the merger of the cooperative was announced", collection="handbook",
         source_id="news", tags=["public"]),
    card("mixed", "merger notes for the cooperative", collection="handbook",
         source_id="notes", tags=["board", "public"]),
    card("eng", "the merger moves the cooperative servers", collection="handbook",
         source_id="runbook", tags=["engineering"]),
    card("wiki", "a merger joins two cooperatives", collection="wiki", source_id="w1"),
]  # fmt: skip
PUBLIC = Restriction(tags=["public"])
PUBLIC_OR_RUNBOOK = Restriction(tags=["public"], source_ids=["runbook"])


@pytest.mark.parametrize("quality", QUALITIES)
@pytest.mark.parametrize(
    ("where", "expected"),
    [
        (SearchFilter(collections=["handbook"], restricted={"handbook": PUBLIC}),
         {"public", "mixed"}),
        (SearchFilter(collections=["handbook", "wiki"], restricted={"handbook": PUBLIC}),
         {"public", "mixed", "wiki"}),
        (SearchFilter(collections=["handbook"],
                      restricted={"handbook": Restriction(source_ids=["runbook"])}), {"eng"}),
        (SearchFilter(collections=["handbook"], restricted={"handbook": PUBLIC_OR_RUNBOOK}),
         {"public", "mixed", "eng"}),
        (SearchFilter(collections=["handbook"], tags=["board"], restricted={"handbook": PUBLIC}),
         {"mixed"}),
        (SearchFilter(collections=["handbook"], source_ids=["minutes"],
                      restricted={"handbook": PUBLIC}), set()),
        (SearchFilter(collections=["handbook"], card_ids=["board0", "public"],
                      restricted={"handbook": PUBLIC}), {"public"}),
    ],
)  # fmt: skip
def test_given_a_restricted_collection_when_searching_then_only_its_visible_cards_come_back(
    retriever: Retriever, where: SearchFilter, expected: set[str], quality: Quality
) -> None:
    retriever.upsert(HANDBOOK)

    assert set(ids(retriever, "merger cooperative", where, 30, quality)) == expected


@pytest.mark.parametrize("quality", QUALITIES)
def test_given_better_hidden_matches_when_searching_restricted_then_k_visible_cards_come_back(
    retriever: Retriever, quality: Quality
) -> None:
    visible = [card(f"p{i}", f"the cooperative number {i}", collection="handbook",
                    source_id="news", tags=["public"]) for i in range(5)]  # fmt: skip
    retriever.upsert([*HANDBOOK, *visible])
    where = SearchFilter(collections=["handbook"], restricted={"handbook": PUBLIC})

    found = ids(retriever, "merger merger cooperative", where, 6, quality)

    # 8 board cards match better than any visible one: a post-filter would return 2 or none.
    assert len(found) == 6
    assert set(found) <= {"public", "mixed", *(c.id for c in visible)}


def test_given_a_restricted_collection_when_counting_sources_then_hidden_cards_are_not_counted(
    retriever: Retriever,
) -> None:
    retriever.upsert(HANDBOOK)
    handbook = SearchFilter(collections=["handbook"])

    assert retriever.source_counts(handbook) == {"minutes": 8, "news": 1, "notes": 1, "runbook": 1}
    assert retriever.source_counts(
        handbook.model_copy(update={"restricted": {"handbook": PUBLIC}})
    ) == {"news": 1, "notes": 1}
    assert (
        retriever.source_counts(
            SearchFilter(collections=["handbook"], source_ids=["minutes"],
                         restricted={"handbook": PUBLIC})
        )
        == {}
    )  # fmt: skip
    assert retriever.source_counts(SearchFilter(collections=["nowhere"])) == {}


def test_given_a_restriction_of_a_collection_not_searched_then_the_filter_is_refused() -> None:
    with pytest.raises(ValueError, match="not searched"):
        SearchFilter(collections=["wiki"], restricted={"handbook": PUBLIC})
    with pytest.raises(ValueError, match="not searched"):
        SearchFilter(restricted={"handbook": PUBLIC})
    with pytest.raises(ValueError, match="tags or sources"):
        SearchFilter(collections=["handbook"], restricted={"handbook": Restriction()})
