"""``GET /v1/starters``: suggested questions of the collections the key's user may see."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from groundwork.api.dependencies import SettingsDep  # noqa: TC001
from groundwork.api.schemas.errors import error_responses
from groundwork.api.schemas.starters import Starter, StarterList
from groundwork.auth.access import Access
from groundwork.auth.keys import CurrentUser  # noqa: TC001
from groundwork.errors import ApiError
from groundwork.starters.listing import list_starters
from groundwork.storage.factory import get_stores
from groundwork.text.language_names import language_code

router = APIRouter(prefix="/v1", tags=["chat"], responses=error_responses(400, 401, 403, 404))


@router.get("/starters", response_model=StarterList)
def starters(
    user: CurrentUser,
    settings: SettingsDep,
    collection: Annotated[str | None, Query(min_length=1, max_length=128)] = None,
    language: Annotated[str | None, Query(max_length=8)] = None,
    limit: Annotated[int, Query(ge=1, le=100)] = 10,
) -> StarterList:
    stores = get_stores(settings)
    access = Access.of(stores.accounts, user.id)
    if collection is not None and collection not in access:
        from groundwork.chat.scope import check_collection
        from groundwork.retrieval.factory import get_retriever

        check_collection(
            stores.accounts,
            get_retriever(settings),
            access,
            collection,
            param="query.collection",
        )
    if language is not None:
        code = language_code(language)
        if code is None:
            raise ApiError(
                400,
                "language.invalid",
                "`language` must be an ISO 639-1 code (two letters).",
                param="query.language",
            )
        language = code
    names = [collection] if collection is not None else access.collections
    found = list_starters(stores.starters, names, access, language=language, limit=limit)
    return StarterList(
        data=[
            Starter(
                id=s.id,
                text=s.text,
                language=s.language,
                collection=s.collection,
                source_id=s.source_id,
            )
            for s in found
        ]
    )
