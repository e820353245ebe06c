"""The reference behaviour of the spec (part 3), as tests against the default verifier."""

from __future__ import annotations

import pytest

from groundwork.grounding.base import Verifier
from groundwork.grounding.model import CheckRequest, CheckResponse, Fact
from groundwork.grounding.service import check
from tests.grounding.examples import GOOGLE, TITANIC, TORONTO


def run(candidate: str, facts: list[Fact], verifier: Verifier, **spec: object) -> CheckResponse:
    return check(CheckRequest(candidate, facts, **spec), verifier)  # type: ignore[arg-type]


def sources(response: CheckResponse, claim: int) -> set[int]:
    return {response.cited_chunks[i].source for i in response.claims[claim].citation_indices}


def test_given_a_meta_sentence_and_a_fact_when_checked_then_only_the_fact_is_checked_and_cited(
    verifier: Verifier,
) -> None:
    response = run(
        "Here is what I found. Titanic was directed by James Cameron.", TITANIC, verifier
    )
    meta, fact = response.claims
    assert not meta.grounding_check_required
    assert meta.citation_indices == []
    assert fact.grounding_check_required
    assert sources(response, 1) == {0}
    assert response.support_score >= 0.9


def test_given_two_supported_claims_when_checked_then_both_are_cited(verifier: Verifier) -> None:
    response = run(
        "Titanic was directed by James Cameron. It was released in 1997.", TITANIC, verifier
    )
    assert all(claim.citation_indices for claim in response.claims)
    assert response.support_score >= 0.9


def test_given_a_claim_that_needs_two_facts_when_checked_then_it_cites_both(
    verifier: Verifier,
) -> None:
    response = run(
        "Titanic was directed by James Cameron. It was based on the sinking of the RMS Titanic "
        "that led to the death of 1500 people.",
        TITANIC,
        verifier,
    )
    assert sources(response, 0) == {0}
    assert sources(response, 1) == {0, 1}
    assert response.support_score >= 0.85


def test_given_an_unsupported_name_when_checked_then_that_claim_has_no_citation(
    verifier: Verifier,
) -> None:
    response = run(
        "Titanic was directed by James Cameron. It starred Brad Pitt and Kate Winslet",
        TITANIC,
        verifier,
    )
    assert sources(response, 0) == {0}
    assert response.claims[1].citation_indices == []
    assert 0.4 <= response.support_score <= 0.7


def test_given_claim_level_scores_when_checked_then_each_checked_claim_has_a_high_score(
    verifier: Verifier,
) -> None:
    response = run(
        "Here is what I found. Titanic was directed by James Cameron. "
        "It starred Kate Winslet and Leonardo DiCaprio.",
        TITANIC,
        verifier,
        enable_claim_level_score=True,
    )
    meta, first, second = response.claims
    assert not meta.grounding_check_required
    assert meta.score is None
    assert first.score is not None
    assert first.score >= 0.9
    assert second.score is not None
    assert second.score >= 0.9
    assert response.support_score >= 0.9


def test_given_the_right_founders_and_a_wrong_year_when_checked_then_it_is_not_grounded(
    verifier: Verifier,
) -> None:
    wrong = run("Google was founded by Larry Page and Sergey Brin in 1975.", GOOGLE, verifier)
    right = run("Google was founded by Larry Page and Sergey Brin in 1998.", GOOGLE, verifier)
    assert wrong.claims[0].citation_indices == []
    assert wrong.support_score < 0.6
    assert right.claims[0].citation_indices == [0]
    assert right.support_score >= 0.9


@pytest.mark.parametrize(
    "candidate",
    [
        "Wikipedia cites that Toronto is the capital of Ontario",
        "Toronto is the capital of Ontario",
    ],
)
def test_given_a_claim_that_leans_on_an_attribute_when_checked_then_it_is_grounded(
    verifier: Verifier, candidate: str
) -> None:
    response = run(candidate, TORONTO, verifier)
    assert response.claims[0].citation_indices == [0]
    assert response.support_score >= 0.9


def test_given_an_attribution_the_fact_does_not_carry_when_checked_then_it_scores_lower(
    verifier: Verifier,
) -> None:
    wikipedia = run("Wikipedia cites that Toronto is the capital of Ontario", TORONTO, verifier)
    government = run(
        "Government of Ontario claims that Toronto is the capital of Ontario", TORONTO, verifier
    )
    assert government.support_score < wikipedia.support_score
