"""The shipped corpora (../shared/data/corpora): a fresh service lists sensible starters for
each, in English, and each is answered with a citation from its own collection.

The keyword index keeps this to seconds; ``bench/starters.py`` runs the same over the
default hybrid index and measures what proposing adds to ingest.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from groundwork.answer.service import AnswerOptions
from groundwork.generation.base import Turn
from groundwork.retrieval.base import SearchFilter
from groundwork.settings import Settings
from groundwork.starters.factory import answer_service
from tests.ingest.conftest import CORPORA, needs
from tests.starters.conftest import service_on

#: collection → (file, title of its document)
SHIPPED = {
    "federalist": ("federalist/federalist.html", "The Federalist Papers"),
    "catechism": ("baltimore-catechism/catechism.txt", "Baltimore Catechism No. 3 (of 4)"),
    "constitution": ("us-constitution/constitution.txt", "The United States' Constitution"),
}


@pytest.mark.slow
@needs(CORPORA / "federalist" / "federalist.html")
def test_given_the_shipped_corpora_when_ingested_then_each_lists_cited_english_starters(
    tmp_path: Path,
) -> None:
    settings = Settings(data_dir=tmp_path / "data", bootstrap_docs=False, retrieval="keyword")
    service = service_on(settings)
    for collection, (name, _) in SHIPPED.items():
        file = CORPORA / name
        report = service.ingestor.ingest([file], collection=collection, root=file.parent)
        assert report.added == 1, report.failed
    answers = answer_service(settings)

    listed = {c: service.stores.starters.list_starters(c) for c in SHIPPED}

    for collection, (_, title) in SHIPPED.items():
        starters = listed[collection]
        texts = [s.text for s in starters]
        assert 2 <= len(texts) <= settings.starters_per_source, (collection, texts)
        assert len(set(texts)) == len(texts)
        assert {s.language for s in starters} == {"en"}, texts
        assert not any("gutenberg" in t.casefold() or "etext" in t.casefold() for t in texts)
        for starter in starters:
            answer = answers.answer(
                [Turn("user", starter.text)],
                SearchFilter(collections=[collection]),
                AnswerOptions(language=starter.language),
            )
            assert answer.citations, starter.text
            assert {c.document_title for c in answer.citations} == {title}, starter.text
    # A Q/A text proposes its own questions; the others, questions about their parts.
    catechism = " ".join((CORPORA / SHIPPED["catechism"][0]).read_text().split())
    assert all(s.text in catechism for s in listed["catechism"]), listed["catechism"]
    assert all(s.text.startswith("What is said about ") for s in listed["federalist"])
    assert all(s.text.startswith("What does Article ") for s in listed["constitution"])
