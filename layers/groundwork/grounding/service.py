"""``check(request)``: the grounding check behind the HTTP route, the CLI and chat verification."""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING

from groundwork.errors import ApiError
from groundwork.grounding.base import Support
from groundwork.grounding.claims import split_claims
from groundwork.grounding.evidence import build_evidence
from groundwork.grounding.gc_pause import collector_paused
from groundwork.grounding.model import (
    MAX_CANDIDATE_TOKENS,
    MAX_FACT_CHARS,
    MAX_FACTS,
    CheckRequest,
    CheckResponse,
    CitedChunk,
    Claim,
    Fact,
)

if TYPE_CHECKING:
    from collections.abc import Sequence

    from groundwork.grounding.base import Verifier

# The spec's token: a word ("off-the-rack" is one) or a sentence-ending period; each CJK
# character counts as a word, since those scripts put no spaces between words.
_SPEC_TOKEN = re.compile(
    r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]"
    r"|[^\W_]+(?:[-'’][^\W_]+)*"
    r"|[.!?。！？]+(?=\s|$)",
)


def count_spec_tokens(text: str) -> int:
    return sum(1 for _ in _SPEC_TOKEN.finditer(text))


def validate(request: CheckRequest) -> None:
    """Raise a 400 ``ApiError`` for a request outside the spec's limits."""
    if not 0 <= request.citation_threshold <= 1 or math.isnan(request.citation_threshold):
        raise ApiError(
            400,
            "grounding_spec.invalid_threshold",
            "groundingSpec.citationThreshold must be a number in [0, 1].",
            param="groundingSpec.citationThreshold",
        )
    if len(request.facts) > MAX_FACTS:
        raise ApiError(
            400,
            "facts.too_many",
            f"At most {MAX_FACTS} facts are accepted; got {len(request.facts)}.",
            param="facts",
        )
    for index, fact in enumerate(request.facts):
        if len(fact.text) > MAX_FACT_CHARS:
            raise ApiError(
                400,
                "facts.too_long",
                f"facts[{index}].factText has {len(fact.text)} characters; "
                f"at most {MAX_FACT_CHARS} are accepted.",
                param=f"facts.{index}.factText",
            )
    _require_unicode(request.answer_candidate, "answerCandidate")
    for index, fact in enumerate(request.facts):
        _require_unicode(fact.text, f"facts.{index}.factText")
        for key, value in fact.attributes.items():
            _require_unicode(key + value, f"facts.{index}.attributes")
    tokens = count_spec_tokens(request.answer_candidate)
    if tokens > MAX_CANDIDATE_TOKENS:
        raise ApiError(
            400,
            "answer_candidate.too_long",
            f"answerCandidate has {tokens} tokens; at most {MAX_CANDIDATE_TOKENS} are accepted.",
            param="answerCandidate",
        )


def _require_unicode(text: str, param: str) -> None:
    # JSON may escape a lone surrogate ("\ud800"), which no UTF-8 byte offset can point into.
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise ApiError(
            400, "request.invalid_unicode", f"{param} is not valid Unicode text.", param=param
        ) from None


def check(request: CheckRequest, verifier: Verifier) -> CheckResponse:
    """Split the candidate into claims, verify those that state a fact, cite what supports them.

    An empty candidate has no claims; ``supportScore`` is then 0, as it is when no claim needs
    a check or there are no facts: it measures support found, and none was.
    """
    validate(request)
    # Paused around a call, not a block: the windows and passages are freed when _check
    # returns, before the collector runs again.
    with collector_paused():
        return _check(request, verifier)


def _check(request: CheckRequest, verifier: Verifier) -> CheckResponse:
    claims = split_claims(request.answer_candidate)
    evidence = build_evidence(request.facts)
    passages = evidence.passages
    to_check = [claim.text for claim in claims if claim.check_required]
    supports = iter(verifier.verify(to_check, passages) if to_check and passages else [])

    chunks: list[CitedChunk] = []
    chunk_index: dict[tuple[int, str], int] = {}
    result: list[Claim] = []
    scores: list[float] = []
    for claim in claims:
        if not claim.check_required:
            result.append(Claim(claim.start_pos, claim.end_pos, claim.text, [], False))
            continue
        support = next(supports, Support(0.0))
        scores.append(support.score)
        citations: list[int] = []
        for passage in support.cited(request.citation_threshold):
            window = evidence.windows[passage]
            key = (window.source, window.text)
            if key not in chunk_index:
                chunk_index[key] = len(chunks)
                chunks.append(CitedChunk(window.text, window.source))
            if chunk_index[key] not in citations:
                citations.append(chunk_index[key])
        result.append(
            Claim(
                claim.start_pos,
                claim.end_pos,
                claim.text,
                citations,
                True,
                round(support.score, 4) if request.enable_claim_level_score else None,
            )
        )
    support_score = round(sum(scores) / len(scores), 4) if scores else 0.0
    return CheckResponse(support_score, chunks, result)


def score_claim(claim: str, facts: Sequence[Fact], verifier: Verifier) -> tuple[float, list[int]]:
    """How well ``facts`` support one claim, and the indices of the facts that support it.

    For callers that verify their own citations (chat answers): the facts are the passages the
    answer cites; a fact counts as supporting when one of its sentence windows does.
    """
    evidence = build_evidence(facts)
    passages = evidence.passages
    if not passages or not claim.strip():
        return 0.0, []
    (support,) = verifier.verify([claim], passages)
    sources: list[int] = []
    for index, _ in support.passages:
        source = evidence.windows[index].source
        if source not in sources:
            sources.append(source)
    return support.score, sources
