"""`groundwork setup-index` and `groundwork ingest` on a live node, configured as a user would."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from groundwork.cli.main import main
from groundwork.retrieval.base import SearchFilter
from groundwork.retrieval.factory import get_retriever
from groundwork.settings import get_settings


@pytest.fixture
def index_name(
    opensearch_client: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> Iterator[str]:
    name = f"groundwork-test-{uuid.uuid4().hex[:12]}"
    monkeypatch.setenv("GROUNDWORK_RETRIEVAL", "opensearch")
    monkeypatch.setenv("GROUNDWORK_OPENSEARCH_INDEX", name)
    monkeypatch.setenv("GROUNDWORK_OPENSEARCH_REPLICAS", "0")
    monkeypatch.setenv("GROUNDWORK_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("GROUNDWORK_BOOTSTRAP_DOCS", "false")
    get_settings.cache_clear()
    get_retriever.cache_clear()
    yield name
    get_settings.cache_clear()
    get_retriever.cache_clear()
    opensearch_client.indices.delete(index=name, params={"ignore_unavailable": "true"})


def test_given_no_index_when_setup_index_runs_twice_then_the_index_exists_as_configured(
    opensearch_client: Any, index_name: str
) -> None:
    assert main(["setup-index"]) == 0
    assert main(["setup-index"]) == 0

    index = opensearch_client.indices.get(index=index_name)[index_name]
    assert index["settings"]["index"]["number_of_replicas"] == "0"
    vector = index["mappings"]["properties"]["embedding"]
    assert vector["method"]["engine"] == get_settings().opensearch_knn_engine
    assert vector["dimension"] == 384


def test_given_a_changed_document_when_reingested_then_only_its_new_text_is_found(
    index_name: str, tmp_path: Path
) -> None:
    doc = tmp_path / "docs" / "tides.md"
    doc.parent.mkdir()
    doc.write_text("# Tides\n\n## Spring\n\nSpring tides come at new moon.\n\n## Neap\n\nNeap.\n")
    assert main(["ingest", str(doc.parent), "--collection", "harbour"]) == 0
    doc.write_text("# Tides\n\n## Spring\n\nSpring tides come at new and full moon.\n")

    assert main(["ingest", str(doc.parent), "--collection", "harbour"]) == 0

    retriever = get_retriever(get_settings())
    where = SearchFilter(collections=["harbour"])
    for quality in ("fast", "precise"):
        hits = retriever.search("spring tides moon", where, 5, quality=quality)  # type: ignore[arg-type]
        assert [hit.card.text for hit in hits] == ["Spring tides come at new and full moon."]
    assert retriever.count("harbour") == 1
