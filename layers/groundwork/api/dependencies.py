"""Request-scoped access to the configured ports, as ``Annotated`` dependencies."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from groundwork.answer.service import AnswerService
from groundwork.answer.verification import GroundedVerifier
from groundwork.generation.factory import get_generator
from groundwork.grounding.factory import get_verifier
from groundwork.retrieval.factory import get_retriever
from groundwork.settings import Settings


def _settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


SettingsDep = Annotated[Settings, Depends(_settings)]


def _answer_service(settings: SettingsDep) -> AnswerService:
    return AnswerService(
        get_retriever(settings),
        get_generator(settings),
        k=settings.retrieval_k,
        verifier=GroundedVerifier(get_verifier(settings)),
    )


AnswerServiceDep = Annotated[AnswerService, Depends(_answer_service)]
