"""``POST /v1/scope/resolve``: what a question with this scope would search, checked against
what the user may see. It saves nothing; a chat request saves the scope it is sent."""

from __future__ import annotations

from fastapi import APIRouter

from groundwork.api.dependencies import SettingsDep  # noqa: TC001
from groundwork.api.schemas.chat import ResolvedScope, ScopeRequest
from groundwork.api.schemas.errors import error_responses
from groundwork.api.scope_resolution import resolve_request
from groundwork.auth.keys import CurrentUser  # noqa: TC001

router = APIRouter(prefix="/v1/scope", tags=["chat"], responses=error_responses(400, 401, 403, 404))


@router.post("/resolve", response_model=ResolvedScope)
def resolve(body: ScopeRequest, user: CurrentUser, settings: SettingsDep) -> ResolvedScope:
    return resolve_request(body, user, settings)
