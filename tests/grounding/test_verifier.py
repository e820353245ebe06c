"""The heuristic verifier and the check service: what flips a verdict, what gets cited."""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import pytest

from groundwork.grounding.base import Passage, Support, Verifier
from groundwork.grounding.factory import get_verifier
from groundwork.grounding.heuristic import _LEXICON, HeuristicVerifier
from groundwork.grounding.model import CheckRequest, CheckResponse, Fact
from groundwork.grounding.service import check, score_claim
from groundwork.settings import Settings
from tests.grounding.examples import TITANIC

BRIDGE = [
    Fact(
        "The Sydney Harbour Bridge opened on 19 March 1932. It carries rail, vehicular, bicycle "
        "and pedestrian traffic. Construction took eight years and cost 6.25 million pounds."
    ),
    Fact("The bridge was not designed by John Bradfield alone; Ralph Freeman designed the arch."),
]


def run(candidate: str, facts: list[Fact], verifier: Verifier, **spec: object) -> CheckResponse:
    return check(CheckRequest(candidate, facts, **spec), verifier)  # type: ignore[arg-type]


def score(candidate: str, verifier: Verifier, facts: list[Fact] = BRIDGE) -> float:
    return run(candidate, facts, verifier).support_score


@pytest.mark.parametrize(
    ("supported", "unsupported"),
    [
        ("The bridge opened in 1932.", "The bridge opened in 1923."),
        ("The bridge opened in March 1932.", "The bridge opened in April 1932."),
        ("Construction took eight years.", "Construction took nine years."),
        ("Construction took 8 years.", "Construction took 80 years."),
        ("Ralph Freeman designed the arch.", "Ralph Abernathy designed the arch."),
        ("The bridge carries rail traffic.", "The bridge does not carry rail traffic."),
        ("The bridge was not designed by John Bradfield alone.", "Bradfield designed the bridge."),
    ],
)
def test_given_one_wrong_detail_when_scored_then_the_verdict_flips(
    verifier: Verifier, supported: str, unsupported: str
) -> None:
    assert score(supported, verifier) >= 0.6
    assert score(unsupported, verifier) < 0.6


def test_given_numbers_written_differently_when_scored_then_they_match(verifier: Verifier) -> None:
    facts = [Fact("Over 1,500 people died when the ship sank.")]
    assert score("About 1500 people died.", verifier, facts) >= 0.9


@pytest.mark.parametrize(
    ("supported", "unsupported"),
    [
        ("東京タワーは1958年に完成した。", "東京タワーは1985年に完成した。"),
        ("このGitHubの資料は公開されている。", "このGitLabの資料は公開されている。"),
    ],
)
def test_given_japanese_with_one_wrong_detail_when_scored_then_the_verdict_flips(
    verifier: Verifier, supported: str, unsupported: str
) -> None:
    """Given a number or a name written against Japanese, with no space between, then it is a
    token of its own, and the wrong one loses the claim its support."""
    facts = [Fact("東京タワーは1958年に完成した。このGitHubの資料は公開されている。")]
    assert score(supported, verifier, facts) >= 0.6
    assert score(unsupported, verifier, facts) < 0.6


def test_given_japanese_facts_when_checked_then_each_character_is_learnt_once() -> None:
    """Given Japanese facts, whose sentences have no spaces, when checked, then the words the
    verifier remembers are their characters: a sentence of characters seen before adds none."""
    verifier = HeuristicVerifier()
    verifier.verify(["東京は日本の首都です。"], [Passage("東京は首都です。大阪は大きい都市です。")])
    learnt = len(_LEXICON._ids)

    verifier.verify(["大阪は日本の都市です。"], [Passage("首都は東京です。大きい都市は大阪です。")])

    assert len(_LEXICON._ids) == learnt


def test_given_html_entities_in_a_fact_when_cited_then_the_chunk_is_decoded(
    verifier: Verifier,
) -> None:
    response = run("Titanic was a romance set against its maiden voyage.", TITANIC, verifier)
    texts = [chunk.chunk_text for chunk in response.cited_chunks]
    assert any('James Cameron\'s "Titanic"' in text for text in texts), texts
    assert not any("&#39;" in text or "&quot;" in text for text in texts)


def test_given_a_long_fact_when_cited_then_the_chunk_is_the_supporting_sentence(
    verifier: Verifier,
) -> None:
    response = run("The bridge opened in 1932.", BRIDGE, verifier)
    assert [(c.chunk_text, c.source) for c in response.cited_chunks] == [
        ("The Sydney Harbour Bridge opened on 19 March 1932.", 0)
    ]


def test_given_two_claims_citing_one_sentence_when_checked_then_the_chunk_appears_once(
    verifier: Verifier,
) -> None:
    response = run("The bridge opened in 1932. It opened in March.", BRIDGE, verifier)
    assert len(response.cited_chunks) == 1
    assert [c.citation_indices for c in response.claims] == [[0], [0]]


def test_given_a_higher_citation_threshold_when_checked_then_citations_only_disappear(
    verifier: Verifier,
) -> None:
    candidate = (
        "Titanic was directed by James Cameron. It starred Kate Winslet and Brad Pitt. "
        "It was based on the sinking of the RMS Titanic that led to the death of 1500 people."
    )
    cited = []
    for threshold in (0.0, 0.2, 0.6, 0.95, 1.0):
        response = run(candidate, TITANIC, verifier, citation_threshold=threshold)
        cited.append({(c.source, c.chunk_text) for c in response.cited_chunks})
    assert all(later <= earlier for earlier, later in itertools.pairwise(cited))
    assert cited[0] > cited[-1]


def test_given_claims_that_need_no_check_when_scored_then_they_leave_the_average_alone(
    verifier: Verifier,
) -> None:
    alone = run("The bridge opened in 1932.", BRIDGE, verifier)
    padded = run("Hello! The bridge opened in 1932. I hope this helps.", BRIDGE, verifier)
    assert padded.support_score == alone.support_score


def test_given_an_empty_candidate_when_checked_then_no_claims_and_zero_support(
    verifier: Verifier,
) -> None:
    for candidate in ("", "   \n  "):
        response = run(candidate, BRIDGE, verifier)
        assert (response.support_score, response.claims, response.cited_chunks) == (0.0, [], [])


def test_given_no_facts_when_checked_then_claims_are_checked_and_nothing_is_cited(
    verifier: Verifier,
) -> None:
    response = run("Hello! The bridge opened in 1932.", [], verifier, enable_claim_level_score=True)
    assert response.support_score == 0.0
    assert response.cited_chunks == []
    assert [(c.grounding_check_required, c.score) for c in response.claims] == [
        (False, None),
        (True, 0.0),
    ]


@pytest.mark.parametrize(
    "facts",
    [
        [Fact("Completely unrelated words here.")],
        [Fact("")],
        [Fact("\x00 \n\n  "), Fact("x")],
    ],
)
def test_given_facts_sharing_no_word_with_the_claim_when_checked_then_zero_and_no_citation(
    verifier: Verifier, facts: list[Fact]
) -> None:
    response = run("The bridge opened in 1932.", facts, verifier)
    assert response.support_score == 0.0
    assert response.cited_chunks == []


def test_given_only_meta_sentences_when_checked_then_support_is_zero(verifier: Verifier) -> None:
    response = run("Here is what I found. I hope this helps.", BRIDGE, verifier)
    assert response.support_score == 0.0
    assert not any(c.grounding_check_required for c in response.claims)


def test_given_one_claim_and_passages_when_scored_then_the_supporting_facts_are_named(
    verifier: Verifier,
) -> None:
    value, supporting = score_claim(
        "The sinking of the RMS Titanic in 1912 killed over 1500 people.", TITANIC, verifier
    )
    assert value >= 0.6
    assert supporting == [0, 1] or supporting == [1, 0]
    assert score_claim("Anything at all.", [], verifier) == (0.0, [])


class _Fixed(Verifier):
    """A verifier that trusts the first passage and nothing else, as a trained model might."""

    def verify(self, claims: Sequence[str], passages: Sequence[Passage]) -> list[Support]:
        return [Support(0.7, ((0, 0.7), (1, 0.3))) for _ in claims]


def test_given_another_verifier_when_checked_then_the_service_uses_its_scores() -> None:
    response = check(
        CheckRequest("The bridge opened in 1932.", BRIDGE, enable_claim_level_score=True),
        _Fixed(),
    )
    assert response.claims[0].score == 0.7
    assert response.claims[0].citation_indices == [0]
    assert (
        response.cited_chunks[0].chunk_text == "The Sydney Harbour Bridge opened on 19 March 1932."
    )


def test_given_the_default_settings_when_asked_for_a_verifier_then_the_heuristic_is_cached(
    tmp_path: object,
) -> None:
    settings = Settings(bootstrap_docs=False)
    assert isinstance(get_verifier(settings), HeuristicVerifier)
    assert get_verifier(settings) is get_verifier(settings)
