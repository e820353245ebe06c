"""Markers are renumbered, verified and never sent half-way, however the text is cut."""

import re

import pytest

from groundwork.answer.citations import CitationStream
from groundwork.answer.limits import OutputLimit
from groundwork.answer.question import search_query
from groundwork.answer.verification import GroundedVerifier, Verdict
from groundwork.errors import ApiError
from groundwork.generation.base import Turn
from groundwork.grounding.heuristic import HeuristicVerifier
from tests.completions.conftest import catechism_cards

PASSAGES = catechism_cards()  # [1] God made us. [2] ...happiness... [3] Prayer ... [4] seven ...


def run(text: str, size: int) -> tuple[list[str], str, CitationStream]:
    """Feed ``text`` in pieces of ``size`` characters; the deltas sent and their sum."""
    stream = CitationStream(PASSAGES, GroundedVerifier(HeuristicVerifier()))
    sent = [stream.feed(text[i : i + size]) for i in range(0, len(text), size)]
    sent.append(stream.close())
    return sent, "".join(sent), stream


ANSWER = (
    "Prayer is the lifting up of our minds and hearts to God. [3] "
    "There are seven sacraments. [4] God made us. [1] Prayer lifts up our hearts. [3]"
)


@pytest.mark.parametrize("size", [1, 2, 3, 7, len(ANSWER)])
def test_given_markers_when_streamed_in_any_pieces_then_they_are_renumbered_by_first_use(
    size: int,
) -> None:
    deltas, text, stream = run(ANSWER, size)

    assert text == (
        "Prayer is the lifting up of our minds and hearts to God. [1] "
        "There are seven sacraments. [2] God made us. [3] Prayer lifts up our hearts. [1]"
    )
    assert [c.document_index for c in stream.citations] == [0, 1, 2]
    assert [c.document_reference for c in stream.citations] == ["3", "4", "1"]
    for delta in deltas:
        assert not re.search(r"\[\d*$", delta), f"a partial marker was sent: {delta!r}"
        assert not re.match(r"^\d*\]", delta), f"a partial marker was sent: {delta!r}"


def test_given_text_without_markers_when_streamed_then_it_flows_at_once() -> None:
    stream = CitationStream(PASSAGES, GroundedVerifier(HeuristicVerifier()))

    assert stream.feed("God made") == "God made"
    assert stream.feed(" us") == " us"
    assert stream.feed(". [") == "."
    assert stream.feed("1] Then") == " [1] Then"


def test_given_a_marker_on_a_passage_that_does_not_support_it_then_it_moves_to_one_that_does() -> (
    None
):
    _, text, stream = run("There are seven sacraments. [1]", 5)

    assert text == "There are seven sacraments. [1]"
    assert stream.citations[0].document_reference == "4"
    assert stream.cited_sentences == 1
    assert stream.supported_sentences == 0


def test_given_a_claim_no_passage_supports_then_its_marker_is_removed() -> None:
    _, text, stream = run("The moon is made of cheese. [2] God made us. [1]", 4)

    assert text == "The moon is made of cheese. God made us. [1]"
    assert [c.document_reference for c in stream.citations] == ["1"]
    assert stream.support_score is not None
    assert 0.4 < stream.support_score < 0.8


def test_given_a_marker_naming_no_passage_then_a_supporting_passage_takes_its_place() -> None:
    _, text, stream = run("God made us. [9]", 3)

    assert text == "God made us. [1]"  # moved to the passage that says so
    assert stream.citations[0].document_reference == "1"


def test_given_a_list_item_without_full_stop_then_its_marker_stays_with_it() -> None:
    _, text, stream = run("God made us [1] Prayer is the lifting up of minds [3]", 2)

    assert text == "God made us [1] Prayer is the lifting up of minds [2]"
    assert stream.supported_sentences == 2


def test_given_a_wrong_number_then_the_grounded_verifier_does_not_support_it() -> None:
    verifier = GroundedVerifier(HeuristicVerifier())

    assert verifier.verify("There are seven sacraments.", PASSAGES).supporting == (3,)
    assert verifier.verify("There are 7 sacraments.", PASSAGES).supporting == (3,)
    assert verifier.verify("There are eight sacraments.", PASSAGES).supporting == ()
    assert verifier.verify("There are 8 sacraments.", PASSAGES).supporting == ()
    assert verifier.verify("Here it is.", PASSAGES) == Verdict(0.0, (), checkable=False)


def test_given_a_stop_sequence_split_across_deltas_then_the_text_ends_before_it() -> None:
    limit = OutputLimit(["END"], None)

    sent = limit.feed("God made us. E") + limit.feed("N") + limit.feed("D and more")

    assert sent == "God made us. "
    assert limit.finish_reason == "stop"
    assert limit.feed("later") == ""


def test_given_a_held_prefix_that_is_not_a_stop_then_it_is_sent() -> None:
    limit = OutputLimit(["END"], None)

    assert limit.feed("AMEN") == "AM"
    assert limit.feed("!") == "EN!"
    assert limit.flush() == ""
    assert limit.finish_reason is None


def test_given_a_token_budget_then_the_text_is_cut_between_words() -> None:
    limit = OutputLimit([], 4)

    sent = limit.feed("God made us") + limit.feed(" to share [1] His happiness.")

    assert sent == "God made us to"
    assert limit.tokens == 4
    assert limit.finish_reason == "length"


def test_given_a_short_follow_up_then_the_previous_question_joins_the_search() -> None:
    turns = [
        Turn("user", "How many sacraments are there?"),
        Turn("assistant", "Seven."),
        Turn("user", "Which ones?"),
    ]

    assert search_query(turns) == "Which ones? many sacrament"
    assert search_query(turns[:1]) == "How many sacraments are there?"


def test_given_no_user_question_last_then_it_is_a_client_error() -> None:
    with pytest.raises(ApiError) as caught:
        search_query([Turn("user", "Hi"), Turn("assistant", "Hello")])

    assert caught.value.code == "messages.no_question"


def test_given_two_passages_saying_the_same_then_both_support_the_sentence() -> None:
    twin = PASSAGES[0].model_copy(update={"id": "twin", "text": "Yes: God made us. He did."})
    verifier = GroundedVerifier(HeuristicVerifier())

    verdict = verifier.verify("God made us.", [PASSAGES[2], twin, PASSAGES[0]])

    assert set(verdict.supporting) == {1, 2}
