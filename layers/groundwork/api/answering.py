"""The answer pipeline built on the configured ports, as an ``Annotated`` dependency.

Apart from ``dependencies`` so that routes that answer nothing (scope, grounding) do not
import the pipeline at a cold start.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends

from groundwork.answer.service import AnswerService
from groundwork.answer.verification import GroundedVerifier
from groundwork.api.dependencies import SettingsDep  # noqa: TC001 (FastAPI resolves it)
from groundwork.generation.factory import get_generator
from groundwork.grounding.factory import get_verifier
from groundwork.retrieval.factory import get_retriever


def answer_service(settings: SettingsDep) -> AnswerService:
    return AnswerService(
        get_retriever(settings),
        get_generator(settings),
        k=settings.retrieval_k,
        verifier=GroundedVerifier(get_verifier(settings)),
    )


AnswerServiceDep = Annotated[AnswerService, Depends(answer_service)]
