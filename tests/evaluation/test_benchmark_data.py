"""The real-question benchmark's corpora (bench/data/real): six kinds, every file sound."""

import json
from pathlib import Path

from bench.real_questions import KINDS, Corpus, corpora, problems


def test_given_the_shipped_corpora_then_every_kind_is_there_and_no_file_has_a_problem() -> None:
    found = corpora()

    assert {corpus.kind for corpus in found} == KINDS
    assert {corpus.name: problems(corpus) for corpus in found} == {c.name: [] for c in found}


def test_given_the_corpora_kept_apart_then_every_kind_is_still_among_those_fitted_on() -> None:
    found = corpora()

    assert any(corpus.apart for corpus in found)
    assert {corpus.kind for corpus in found if not corpus.apart} == KINDS


def test_given_a_corpus_json_whose_apart_is_not_a_boolean_then_it_is_a_problem(
    tmp_path: Path,
) -> None:
    (tmp_path / "corpus.json").write_text(json.dumps({"name": "x", "apart": "yes"}))
    corpus = Corpus("x", "law", "en", tmp_path, tmp_path)

    assert "apart must be true or false" in problems(corpus)
