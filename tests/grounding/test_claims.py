"""Claims: one per sentence, UTF-8 byte offsets, and which ones state a fact."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from groundwork.grounding.claims import check_required, split_claims


@given(st.text())
def test_given_any_unicode_candidate_when_split_then_byte_offsets_slice_back_to_claim_text(
    candidate: str,
) -> None:
    encoded = candidate.encode("utf-8")
    previous_end = 0
    for claim in split_claims(candidate):
        assert encoded[claim.start_pos : claim.end_pos].decode("utf-8") == claim.text
        assert previous_end <= claim.start_pos < claim.end_pos
        previous_end = claim.end_pos


@given(st.lists(st.sampled_from(["Zoë ate 3.5 crêpes.", "東京は首都です。", "Ok! 😀 Fine?"])))
def test_given_sentences_with_multibyte_characters_when_split_then_offsets_are_in_bytes(
    parts: list[str],
) -> None:
    candidate = " ".join(parts)
    encoded = candidate.encode("utf-8")
    for claim in split_claims(candidate):
        assert encoded[claim.start_pos : claim.end_pos].decode("utf-8") == claim.text


def test_given_a_multibyte_prefix_when_split_then_the_second_claim_starts_at_its_byte() -> None:
    first, second = split_claims("Café ouvert. Naïve art.")
    assert (first.start_pos, first.end_pos) == (0, len("Café ouvert.".encode()))
    assert second.start_pos == len("Café ouvert. ".encode())
    assert second.text == "Naïve art."


@pytest.mark.parametrize(
    "sentence",
    [
        "Here is what I found.",
        "Here's a summary of the results:",
        "Hello!",
        "Thanks!",
        "I hope this helps.",
        "Let me know if you need anything else.",
        "I can help you with more details.",
        "Would you like to know more?",
        "Which year do you mean?",
        "...",
    ],
)
def test_given_a_sentence_that_states_no_fact_when_classified_then_no_check_is_required(
    sentence: str,
) -> None:
    assert not check_required(sentence)


@pytest.mark.parametrize(
    "sentence",
    [
        "Titanic was directed by James Cameron.",
        "Based on the documents, Titanic was released in 1997.",
        "I found that the bridge opened in 1932 after six years of work on its steel arch.",
        "It was released in 1997.",
        "東京は日本の首都です。",
    ],
)
def test_given_a_sentence_that_states_a_fact_when_classified_then_a_check_is_required(
    sentence: str,
) -> None:
    assert check_required(sentence)
