"""``GET /v1/models``: the one model id the service answers as, for OpenAI clients."""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter
from pydantic import BaseModel

from groundwork.api.dependencies import SettingsDep  # noqa: TC001
from groundwork.api.schemas.errors import error_responses
from groundwork.errors import ApiError

router = APIRouter(prefix="/v1", tags=["models"], responses=error_responses(401))

#: 2026-01-01: a fixed date, so that the listing is the same on every start.
_CREATED = 1767225600


class Model(BaseModel):
    id: str
    object: Literal["model"] = "model"
    created: int = _CREATED
    owned_by: str = "groundwork"


class ModelList(BaseModel):
    object: Literal["list"] = "list"
    data: list[Model]


@router.get("/models")
def list_models(settings: SettingsDep) -> ModelList:
    return ModelList(data=[Model(id=settings.model_name)])


@router.get("/models/{model_id}", responses=error_responses(404))
def retrieve_model(model_id: str, settings: SettingsDep) -> Model:
    if model_id != settings.model_name:
        raise ApiError(404, "models.not_found", f"No model {model_id!r}.", param="model")
    return Model(id=model_id)
