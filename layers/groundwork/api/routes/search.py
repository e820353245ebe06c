"""``POST /v1/search``: the best passages for a query, with what a citation of each names."""

from __future__ import annotations

from fastapi import APIRouter

from groundwork.api.dependencies import SettingsDep  # noqa: TC001
from groundwork.api.schemas.errors import error_responses
from groundwork.api.schemas.search import SearchRequest, SearchResponse, SearchResult
from groundwork.errors import ApiError
from groundwork.retrieval.base import SearchFilter
from groundwork.retrieval.factory import get_retriever

router = APIRouter(prefix="/v1", tags=["search"], responses=error_responses(400, 401, 403, 404))


@router.post("/search", response_model=SearchResponse)
def search(body: SearchRequest, settings: SettingsDep) -> SearchResponse:
    if not body.query.strip():
        raise ApiError(400, "query.empty", "The query has no words to search for.", param="query")
    scope = body.scope
    collections = (scope.collections if scope else []) or [
        body.collection or settings.default_collection
    ]
    retriever = get_retriever(settings)
    for name in collections:
        if retriever.count(name) == 0:
            raise ApiError(
                404, "collections.not_found", f"No collection {name!r}.", param="collection"
            )
    tags = sorted({*(body.tags or []), *(scope.tags if scope else [])}) or None
    where = SearchFilter(collections=collections, tags=tags)
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
