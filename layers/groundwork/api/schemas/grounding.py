"""``groundingConfigs/*:check``: Vertex AI's check-grounding request and response, in camelCase.

Numbers and booleans arrive as JSON strings from some clients ("0.6", "true"): both forms are
accepted, and the schema says so. A boolean is ``true``/``false`` or those words as strings;
a number (``0``) or another word (``"yes"``) is refused. Limits are checked by the grounding
service, which gives each its own error code.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, WithJsonSchema
from pydantic.alias_generators import to_camel

from groundwork.grounding.model import (
    DEFAULT_CITATION_THRESHOLD,
    CheckRequest,
    CheckResponse,
    Fact,
)


def _json_bool(value: Any) -> Any:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    raise ValueError('must be a boolean: true or false, or the string "true" or "false"')


def _json_number(value: Any) -> Any:
    if isinstance(value, bool):
        raise ValueError("must be a number")  # bool is an int to Python, not to JSON
    return value


#: ``true``, ``false``, ``"true"`` or ``"false"``.
JsonBool = Annotated[
    bool,
    BeforeValidator(_json_bool),
    WithJsonSchema({"anyOf": [{"type": "boolean"}, {"type": "string", "enum": ["true", "false"]}]}),
]
#: A number in [0, 1], or one written as a string (``"0.6"``); the range is checked by the
#: grounding service, with its own code.
UnitNumber = Annotated[
    float,
    BeforeValidator(_json_number),
    WithJsonSchema(
        {
            "anyOf": [
                {"type": "number", "minimum": 0, "maximum": 1},
                {"type": "string", "pattern": r"^\s*(0(\.\d+)?|1(\.0+)?|\.\d+)\s*$"},
            ]
        }
    ),
]


class _Camel(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore")


class GroundingFact(_Camel):
    fact_text: str
    attributes: dict[str, str] = Field(default_factory=dict)


class GroundingSpec(_Camel):
    citation_threshold: UnitNumber = DEFAULT_CITATION_THRESHOLD
    enable_claim_level_score: JsonBool = False


class CheckGroundingRequest(_Camel):
    answer_candidate: str
    facts: list[GroundingFact] = Field(default_factory=list)
    grounding_spec: GroundingSpec = Field(default_factory=GroundingSpec)

    def to_domain(self) -> CheckRequest:
        return CheckRequest(
            answer_candidate=self.answer_candidate,
            facts=[Fact(f.fact_text, dict(f.attributes)) for f in self.facts],
            citation_threshold=self.grounding_spec.citation_threshold,
            enable_claim_level_score=self.grounding_spec.enable_claim_level_score,
        )


class CitedChunk(_Camel):
    chunk_text: str
    source: str  # the fact's index, as a string like Vertex AI


class Claim(_Camel):
    start_pos: int
    end_pos: int
    claim_text: str
    citation_indices: list[int]
    grounding_check_required: bool
    score: float | None = None


class CheckGroundingResponse(_Camel):
    support_score: float
    cited_chunks: list[CitedChunk]
    claims: list[Claim]

    @classmethod
    def from_domain(cls, response: CheckResponse) -> CheckGroundingResponse:
        return cls(
            support_score=response.support_score,
            cited_chunks=[
                CitedChunk(chunk_text=c.chunk_text, source=str(c.source))
                for c in response.cited_chunks
            ],
            claims=[
                Claim(
                    start_pos=c.start_pos,
                    end_pos=c.end_pos,
                    claim_text=c.claim_text,
                    citation_indices=c.citation_indices,
                    grounding_check_required=c.grounding_check_required,
                    score=c.score,
                )
                for c in response.claims
            ],
        )
