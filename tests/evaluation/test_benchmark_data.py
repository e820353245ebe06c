"""The real-question benchmark's corpora (bench/data/real): six kinds, every file sound."""

from bench.real_questions import KINDS, corpora, problems


def test_given_the_shipped_corpora_then_every_kind_is_there_and_no_file_has_a_problem() -> None:
    found = corpora()

    assert {corpus.kind for corpus in found} == KINDS
    assert {corpus.name: problems(corpus) for corpus in found} == {c.name: [] for c in found}
