"""Check grounding: Vertex AI's ``groundingConfigs/{config}:check`` path and a short alias."""

from __future__ import annotations

from typing import TYPE_CHECKING

from fastapi import APIRouter

from groundwork.api.dependencies import SettingsDep  # noqa: TC001
from groundwork.api.schemas.errors import error_responses
from groundwork.api.schemas.grounding import CheckGroundingRequest, CheckGroundingResponse
from groundwork.grounding.factory import get_verifier
from groundwork.grounding.service import check

if TYPE_CHECKING:
    from groundwork.settings import Settings

router = APIRouter(prefix="/v1", tags=["check grounding"], responses=error_responses(400, 401))


@router.post(
    "/projects/{project}/locations/{location}/groundingConfigs/{config}:check",
    response_model=CheckGroundingResponse,
    response_model_exclude_none=True,
)
def check_grounding(
    project: str, location: str, config: str, body: CheckGroundingRequest, settings: SettingsDep
) -> CheckGroundingResponse:
    """Vertex AI's path; any project, location and config name is accepted and ignored."""
    return _check(body, settings)


@router.post(
    "/grounding:check", response_model=CheckGroundingResponse, response_model_exclude_none=True
)
def check_grounding_alias(
    body: CheckGroundingRequest, settings: SettingsDep
) -> CheckGroundingResponse:
    """The same check under a short path."""
    return _check(body, settings)


def _check(body: CheckGroundingRequest, settings: Settings) -> CheckGroundingResponse:
    response = check(body.to_domain(), get_verifier(settings))
    return CheckGroundingResponse.from_domain(response)
