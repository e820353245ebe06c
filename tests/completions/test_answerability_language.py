"""Answerability of questions in German, over German passages."""

from __future__ import annotations

from groundwork.answer.answerability import answers, probability
from groundwork.answer.relevance import gather
from groundwork.domain.cards import Card
from groundwork.embeddings.factory import get_embedder

GERMAN = [
    Card(id="de-0", collection="k", source_id="s", url="k#0", language="de",
         heading="Wie viele Sakramente gibt es?",
         text="Es gibt sieben Sakramente: die Taufe, die Firmung, die heilige Eucharistie, "
         "die Buße, die Krankensalbung, die Weihe und die Ehe."),
    Card(id="de-1", collection="k", source_id="s", url="k#1", language="de",
         heading="Was ist das Gebet?",
         text="Das Gebet ist die Erhebung unseres Geistes und unseres Herzens zu Gott."),
]  # fmt: skip


def test_given_a_german_question_its_german_passage_answers_then_it_is_answerable() -> None:
    evidence = gather("Wie viele Sakramente gibt es?", GERMAN, get_embedder())

    assert not evidence.english
    assert not evidence.cross_lingual
    assert answers(probability(evidence))


def test_given_a_german_question_the_passages_do_not_touch_then_it_is_not_answerable() -> None:
    evidence = gather("Wer hat die Dampfmaschine erfunden?", GERMAN, get_embedder())

    assert not answers(probability(evidence))
