"""``GET /v1/collections``: what the key's user may search with native chat, and the sources
of each, for a client to pick a scope from."""

from __future__ import annotations

from typing import TYPE_CHECKING

from fastapi import APIRouter

from groundwork.api.dependencies import SettingsDep  # noqa: TC001
from groundwork.api.schemas.errors import error_responses
from groundwork.api.schemas.listings import CollectionList, CollectionSummary, SourceSummary
from groundwork.auth.access import Access
from groundwork.auth.keys import CurrentUser  # noqa: TC001
from groundwork.retrieval.base import SearchFilter
from groundwork.storage.factory import get_storage, get_stores

if TYPE_CHECKING:
    from groundwork.retrieval.base import Restriction
    from groundwork.settings import Settings

router = APIRouter(prefix="/v1", tags=["chat"], responses=error_responses(401))


@router.get("/collections", response_model=CollectionList)
def list_collections(user: CurrentUser, settings: SettingsDep) -> CollectionList:
    accounts = get_stores(settings).accounts
    storage = get_storage(settings)
    access = Access.of(accounts, user.id)
    data = []
    for collection in accounts.list_collections():
        if collection.name not in access:
            continue
        sources = sorted(
            storage.list_sources(collection.name),
            key=lambda s: ((s.title or s.location).casefold(), s.location, s.id),
        )
        counts = _visible_cards(settings, collection.name, access.restriction(collection.name))
        data.append(
            CollectionSummary(
                name=collection.name,
                title=collection.title,
                sources=[
                    SourceSummary(
                        id=s.id,
                        title=s.title,
                        location=s.location,
                        cards=s.cards if counts is None else counts[s.id],
                    )
                    for s in sources
                    if counts is None or s.id in counts
                ],
            )
        )
    return CollectionList(data=data)


def _visible_cards(
    settings: Settings, collection: str, restriction: Restriction | None
) -> dict[str, int] | None:
    """For a collection seen in part, the cards seen of each source that has any (the others
    are not listed, and counts say nothing of what is hidden); None for a whole one."""
    if restriction is None:
        return None
    from groundwork.retrieval.factory import get_retriever

    where = SearchFilter(collections=[collection], restricted={collection: restriction})
    return get_retriever(settings).source_counts(where)
