"""``GET /v1/collections``: what the key's user may search with native chat, and the sources
of each, for a client to pick a scope from."""

from __future__ import annotations

from fastapi import APIRouter

from groundwork.api.dependencies import SettingsDep  # noqa: TC001
from groundwork.api.schemas.errors import error_responses
from groundwork.api.schemas.listings import CollectionList, CollectionSummary, SourceSummary
from groundwork.auth.keys import CurrentUser  # noqa: TC001
from groundwork.storage.factory import get_storage, get_stores

router = APIRouter(prefix="/v1", tags=["chat"], responses=error_responses(401))


@router.get("/collections", response_model=CollectionList)
def list_collections(user: CurrentUser, settings: SettingsDep) -> CollectionList:
    accounts = get_stores(settings).accounts
    storage = get_storage(settings)
    visible = set(accounts.visible_collections(user.id))
    data = []
    for collection in accounts.list_collections():
        if collection.name not in visible:
            continue
        sources = sorted(
            storage.list_sources(collection.name),
            key=lambda s: ((s.title or s.location).casefold(), s.location, s.id),
        )
        data.append(
            CollectionSummary(
                name=collection.name,
                title=collection.title,
                sources=[
                    SourceSummary(id=s.id, title=s.title, location=s.location, cards=s.cards)
                    for s in sources
                ],
            )
        )
    return CollectionList(data=data)
