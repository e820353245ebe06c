"""Builds the configured verifier once per settings object."""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

from groundwork.settings import Settings, get_settings

if TYPE_CHECKING:
    from groundwork.grounding.base import Verifier


@lru_cache(maxsize=4)
def get_verifier(settings: Settings | None = None) -> Verifier:
    settings = settings or get_settings()
    match settings.verifier:
        case "heuristic":
            from groundwork.grounding.heuristic import HeuristicVerifier

            return HeuristicVerifier()
        case "model" | "combined":
            from groundwork.grounding.cross_encoder import CrossEncoderVerifier

            return CrossEncoderVerifier(
                weights=settings.verifier_weights,
                blend=0.5 if settings.verifier == "combined" else 0.0,
                max_claims=settings.verifier_model_claims,
            )
