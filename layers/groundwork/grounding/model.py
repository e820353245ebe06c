"""The check-grounding request and response, independent of HTTP, plus the limits of the spec."""

from __future__ import annotations

from dataclasses import dataclass, field

MAX_FACTS = 200
MAX_FACT_CHARS = 10_000
MAX_CANDIDATE_TOKENS = 4096
DEFAULT_CITATION_THRESHOLD = 0.6


@dataclass(frozen=True)
class Fact:
    text: str
    attributes: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class CheckRequest:
    answer_candidate: str
    facts: list[Fact]
    citation_threshold: float = DEFAULT_CITATION_THRESHOLD
    enable_claim_level_score: bool = False


@dataclass(frozen=True)
class CitedChunk:
    chunk_text: str
    source: int  # the fact's index in the request


@dataclass(frozen=True)
class Claim:
    start_pos: int  # UTF-8 byte offsets into the candidate, end exclusive
    end_pos: int
    claim_text: str
    citation_indices: list[int]
    grounding_check_required: bool
    score: float | None = None  # only when claim-level scoring is enabled


@dataclass(frozen=True)
class CheckResponse:
    support_score: float
    cited_chunks: list[CitedChunk]
    claims: list[Claim]
