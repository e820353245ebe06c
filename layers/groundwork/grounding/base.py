"""The verifier port: how fully passages entail a claim, and which passages do."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from collections.abc import Sequence


class Passage(NamedTuple):
    text: str
    # Text that belongs to the passage's source without being quotable from it (a fact's
    # attributes: "author: Wikipedia"); a claim may lean on it.
    context: str = ""


@dataclass(frozen=True)
class Support:
    score: float  # 0-1: how fully the passages entail the claim
    # Passages that support the claim, strongest first, each with the score it stands for: a
    # passage that entails the claim alone carries its own score, passages that only entail it
    # together carry the score of the combination.
    passages: tuple[tuple[int, float], ...] = ()

    def cited(self, threshold: float) -> list[int]:
        """The supporting passages whose score reaches ``threshold``."""
        return [index for index, score in self.passages if score >= threshold]


class Verifier(ABC):
    """Scores claims against passages; a trained entailment model can replace the heuristic."""

    @abstractmethod
    def verify(self, claims: Sequence[str], passages: Sequence[Passage]) -> list[Support]:
        """One ``Support`` per claim, in order; passages are indexed as given."""
