"""The passages an answer reads: each section's best card before any section's second."""

from __future__ import annotations

from typing import TYPE_CHECKING

from groundwork.answer.passages import answer_passages, one_per_section
from groundwork.domain.cards import Hit
from groundwork.retrieval.base import SearchFilter
from tests.retrieval.conftest import card

if TYPE_CHECKING:
    from groundwork.retrieval.embedded import EmbeddedIndex

GUIDE = ["Starting a project", "Choosing a license"]
OTHER = ["Starting a project", "Writing a README"]


def hits(*cards: tuple[str, list[str]], title: str | None = None) -> list[Hit]:
    """Hits best first, each a card id with its heading path, of a document titled ``title``."""
    return [
        Hit(card=card(i, f"text of {i}", heading_path=path, title=title), score=1.0 - n / 10)
        for n, (i, path) in enumerate(cards)
    ]


def ids(chosen: list[Hit]) -> list[str]:
    return [h.card.id for h in chosen]


def test_given_one_section_crowding_the_top_when_choosing_then_other_sections_come_first() -> None:
    ranked = hits(("a1", GUIDE), ("a2", GUIDE), ("a3", GUIDE), ("b1", OTHER), ("c1", ["Other"]))

    chosen = one_per_section(ranked, 3)

    assert ids(chosen) == ["a1", "b1", "c1"]


def test_given_fewer_sections_than_asked_when_choosing_then_the_rest_fill_in_score_order() -> None:
    ranked = hits(("a1", GUIDE), ("a2", GUIDE), ("b1", OTHER), ("a3", GUIDE), ("b2", OTHER))

    chosen = one_per_section(ranked, 4)

    assert ids(chosen) == ["a1", "b1", "a2", "a3"]


def test_given_cards_under_a_title_alone_when_choosing_then_each_is_its_own_section() -> None:
    # Plain text and articles without sections: every card has the document's title alone.
    ranked = hits(
        ("p1", ["Treaty of Ghent"]),
        ("p2", ["Treaty of Ghent"]),
        ("p3", []),
        title="Treaty of Ghent",
    )

    chosen = one_per_section(ranked, 3)

    assert ids(chosen) == ["p1", "p2", "p3"]


def test_given_a_top_level_section_of_a_titled_document_when_choosing_then_it_is_one_section() -> (
    None
):
    """Given a Markdown page whose title is in its front matter, so that its `##` sections are
    heading paths of one level, when its cards are chosen, then one section's cards do not
    crowd out another's."""
    audience = ["Go where your project's audience is"]
    ranked = hits(
        ("a0", audience), ("a1", audience), ("a2", audience), ("b1", ["Build a reputation"]),
        title="Finding Users",
    )  # fmt: skip

    assert ids(one_per_section(ranked, 2)) == ["a0", "b1"]


def test_given_the_same_headings_in_two_documents_when_choosing_then_they_are_two_sections() -> (
    None
):
    ranked = [
        Hit(card=card("x1", "x", heading_path=GUIDE, source_id="x"), score=0.9),
        Hit(card=card("y1", "y", heading_path=GUIDE, source_id="y"), score=0.8),
        Hit(card=card("x2", "x", heading_path=GUIDE, source_id="x"), score=0.7),
    ]

    assert ids(one_per_section(ranked, 2)) == ["x1", "y1"]


def test_given_an_index_with_a_long_section_when_answering_then_its_cards_do_not_fill_the_five(
    index: EmbeddedIndex,
) -> None:
    licence = [
        card(f"lic-{n}", f"Choose a license for your project: the license, part {n}.",
             heading_path=GUIDE)
        for n in range(4)
    ]  # fmt: skip
    readme = card("readme", "A license file and a README tell people about your project.",
                  heading_path=OTHER)  # fmt: skip
    index.upsert([*licence, readme])
    where = SearchFilter(collections=["main"])

    everything = index.search("license project", where, 5, quality="fast")
    chosen = answer_passages(index, "license project", where, 2, quality="fast", language=None)

    assert [h.card.id for h in everything].index("readme") >= 2  # crowded out by score alone
    assert {h.card.id for h in chosen} == {everything[0].card.id, "readme"}
