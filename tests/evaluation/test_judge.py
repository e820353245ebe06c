"""Judging an answer: its first sentence, the expected fragments, sources and sections."""

import pytest

from groundwork.evaluation.judge import first_sentence, holds_answer, same_source, under_section


def test_given_an_answer_of_two_cited_sentences_then_the_first_is_read_without_markers() -> None:
    answer = "Use the `|` operator: `d1 | d2`. [1] It returns a new dictionary. [2]"

    assert first_sentence(answer) == "Use the `|` operator: `d1 | d2`."


def test_given_an_answer_opening_with_a_label_then_the_label_belongs_to_the_first_sentence() -> (
    None
):
    answer = "Section 2. The President shall be Commander in Chief. [1] He may pardon. [2]"

    assert first_sentence(answer) == "Section 2. The President shall be Commander in Chief."


@pytest.mark.parametrize(
    ("sentence", "answers", "expected"),
    [
        ("Use the `|` operator: `d1 | d2`.", ("d1 | d2",), True),
        ("He must be  Thirty-Five\nYears old.", ("thirty-five years",), True),
        ("It’s the Senate’s power.", ("Senate's power",), True),
        ("Dictionaries can be merged.", ("d1 | d2",), False),
        ("", ("anything",), False),
    ],
)
def test_given_expected_fragments_then_case_space_quotes_and_markup_are_ignored(
    sentence: str, answers: tuple[str, ...], expected: bool
) -> None:
    assert holds_answer(sentence, answers) is expected


@pytest.mark.parametrize(
    ("location", "url", "title", "expected", "same"),
    [
        ("guide/timeouts.md", "guide/timeouts.md#pool", None, "guide/timeouts.md", True),
        ("guide/timeouts.md", "https://x.org/t", None, "timeouts.md", True),
        ("timeouts.md", "timeouts.md", None, "docs/timeouts.md", True),
        ("api/index.md", "api/index.md", None, "guide/index.md", False),
        (
            "a.md",
            "https://example.org/handbook/leave",
            None,
            "https://example.org/handbook/leave",
            True,
        ),
        ("a.md", "a.md", "Leave Policy", "leave policy", True),
        ("a.md", "a.md", "Leave Policy", "b.md", False),
    ],
)
def test_given_an_expected_source_then_path_url_or_title_names_it(
    location: str, url: str, title: str | None, expected: str, same: bool
) -> None:
    assert same_source(location, url, title, expected) is same


def test_given_a_section_then_a_heading_that_holds_it_counts() -> None:
    headings = ["The Constitution", "ARTICLE. I.", "Section. 3."]

    assert under_section(headings, "Article. I")
    assert under_section(headings, "section. 3.")
    assert not under_section(headings, "Section. 4.")


def test_given_a_section_path_then_each_part_needs_a_heading_in_order() -> None:
    headings = ["The Constitution", "ARTICLE 2", "Section 2"]

    assert under_section(headings, "ARTICLE 2 > Section 2")
    assert not under_section(headings, "Article 3 > Section 2")
    assert not under_section(headings, "Section 2 > Article 2")


def test_given_a_sentence_that_introduces_code_then_the_code_is_read_with_it() -> None:
    answer = "Pass the `json` parameter: [1]\n\n```pycon\n>>> httpx.post(url, json=data)\n```"

    assert first_sentence(answer) == (
        "Pass the `json` parameter:\n\n```pycon\n>>> httpx.post(url, json=data)\n```"
    )
    assert holds_answer(first_sentence(answer), ("json=data",))
