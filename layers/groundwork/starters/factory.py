"""The proposer of the configured ports, or None when proposals are off."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from groundwork.answer.service import AnswerService
    from groundwork.settings import Settings
    from groundwork.starters.proposer import StarterProposer


def starter_proposer(settings: Settings) -> StarterProposer | None:
    if settings.starters_per_source == 0:
        return None
    from groundwork.starters.proposer import StarterProposer, answerable
    from groundwork.storage.factory import get_stores

    return StarterProposer(
        answer_service(settings),
        get_stores(settings).starters,
        per_source=settings.starters_per_source,
        checks=(answerable,),
    )


def answer_service(settings: Settings) -> AnswerService:
    """The same answer pipeline as ``POST /v1/chat``, so a kept proposal is answered there."""
    from groundwork.answer.service import AnswerService
    from groundwork.answer.verification import GroundedVerifier
    from groundwork.generation.factory import get_generator
    from groundwork.grounding.factory import get_verifier
    from groundwork.retrieval.factory import get_retriever

    return AnswerService(
        get_retriever(settings),
        get_generator(settings),
        k=settings.retrieval_k,
        verifier=GroundedVerifier(get_verifier(settings)),
    )
