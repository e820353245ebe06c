"""``POST /v1/search``: the best passages for a query, with what a citation of each names."""

from __future__ import annotations

from fastapi import APIRouter

from groundwork.api.dependencies import SettingsDep  # noqa: TC001
from groundwork.api.schemas.errors import error_responses
from groundwork.api.schemas.search import SearchRequest, SearchResponse, SearchResult
from groundwork.auth.keys import UserAccess  # noqa: TC001 (FastAPI resolves it)
from groundwork.chat.request import ChatScope
from groundwork.chat.scope import resolve_scope
from groundwork.errors import ApiError
from groundwork.retrieval.factory import get_retriever
from groundwork.storage.factory import get_storage, get_stores

router = APIRouter(prefix="/v1", tags=["search"], responses=error_responses(400, 401, 403, 404))


@router.post("/search", response_model=SearchResponse)
def search(body: SearchRequest, settings: SettingsDep, access: UserAccess) -> SearchResponse:
    if not body.query.strip():
        raise ApiError(400, "query.empty", "The query has no words to search for.", param="query")
    retriever = get_retriever(settings)
    # The same check as chat completions and native chat: what the key's user may see.
    where = resolve_scope(
        get_stores(settings).accounts,
        get_storage(settings),
        retriever,
        access,
        collection=body.collection or settings.default_collection,
        scope=ChatScope(collections=body.scope.collections, tags=body.scope.tags)
        if body.scope
        else None,
        tags=body.tags,
    )
    hits = retriever.search(body.query, where, body.k, quality=body.quality)
    return SearchResponse(
        results=[
            SearchResult(
                card_id=hit.card.id,
                score=hit.score,
                cited_text=hit.card.text,
                cited_text_heading=hit.card.heading,
                document_title=hit.card.title,
                document_author=hit.card.author,
                document_year=hit.card.year,
                document_reference=hit.card.reference,
                source_url=hit.card.url,
            )
            for hit in hits
        ]
    )
