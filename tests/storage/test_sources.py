"""The sources port the ingest pipeline uses, on every backend."""

from __future__ import annotations

from groundwork.storage.base import SourceRecord
from tests.storage.conftest import Backend


def _source(source_id: str, collection: str) -> SourceRecord:
    return SourceRecord(
        id=source_id,
        collection=collection,
        title=None,
        location=f"{source_id}.md",
        content_hash="h",
        cards=3,
    )


def test_given_sources_when_listed_by_collection_then_only_that_collections_come(
    backend: Backend,
) -> None:
    for source_id, collection in (("b", "docs"), ("a", "docs"), ("c", "other")):
        backend.storage.put_source(_source(source_id, collection))

    assert [s.id for s in backend.storage.list_sources("docs")] == ["a", "b"]
    assert backend.storage.get_source("c") == _source("c", "other")
    assert backend.storage.delete_source("c") is True
    assert backend.storage.delete_source("c") is False
    assert backend.storage.get_source("c") is None
