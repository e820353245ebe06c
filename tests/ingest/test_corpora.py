"""The shared collections cite well: titles, headings, authors and references as written."""

from __future__ import annotations

import re

from groundwork.ingest.pipeline import cards_of, parse
from tests.ingest.conftest import CORPORA, needs

FEDERALIST = CORPORA / "federalist" / "federalist.html"
CATECHISM = CORPORA / "baltimore-catechism" / "catechism.txt"
CONSTITUTION = CORPORA / "us-constitution" / "constitution.txt"


@needs(FEDERALIST)
def test_given_the_federalist_html_when_ingested_then_each_paper_cites_its_number_and_author() -> (
    None
):
    cards = cards_of(parse(".html", FEDERALIST.read_bytes()), "f", "s", "federalist.html", [])

    tenth = [c for c in cards if c.heading and c.heading.startswith("FEDERALIST No. 10.")]
    faction = next(c for c in tenth if "By a faction, I understand" in c.text)
    assert faction.title == "The Federalist Papers"
    assert (faction.author, faction.year) == ("Madison", "1787")
    assert faction.url == "federalist.html#2H_4_0010"
    assert faction.reference == "2–4"
    assert len({c.heading for c in cards}) == 85
    assert {c.author for c in cards} >= {"Hamilton", "Madison", "Jay"}
    assert not any("Project Gutenberg" in c.text for c in cards)


@needs(CATECHISM)
def test_given_the_catechism_when_ingested_then_questions_are_references_under_their_lesson() -> (
    None
):
    cards = cards_of(parse(".txt", CATECHISM.read_bytes()), "c", "s", "catechism.txt", [])

    q126 = next(c for c in cards if c.reference == "126")
    assert q126.text.startswith('By the "end of man" we mean the purpose')
    assert q126.heading_path == [
        "LESSON FIRST. ON THE END OF MAN.",
        'What do we mean by the "end of man"?',
    ]
    assert q126.title == "Baltimore Catechism No. 3 (of 4)"
    asked = {
        c.reference for c in cards if len(c.heading_path) == 2 and c.heading_path[1][-1] in "?."
    }
    assert len(asked) >= 1390
    assert not any(re.search(r"\{\d+\}|^Q\. |\bA\. ", c.text) for c in cards)
    assert not any("Transcriber" in c.text or "Produced by" in c.text for c in cards)


@needs(CONSTITUTION)
def test_given_the_constitution_when_ingested_then_articles_and_sections_are_headings() -> None:
    cards = cards_of(parse(".txt", CONSTITUTION.read_bytes()), "u", "s", "constitution.txt", [])

    militia = next(c for c in cards if "organizing, arming, and disciplining" in c.text)
    assert militia.heading_path == ["Article 1", "Section 8"]
    assert militia.reference == "Article 1, Section 8"
    assert militia.title == "The United States' Constitution"
