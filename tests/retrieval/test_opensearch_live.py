"""Against a real cluster, only when OPENSEARCH_URL names one (e.g. http://localhost:9200)."""

from __future__ import annotations

import os
import time
import uuid

import pytest

from groundwork.retrieval.base import SearchFilter
from tests.retrieval.conftest import HashingEmbedder, card

URL = os.environ.get("OPENSEARCH_URL")
pytestmark = pytest.mark.skipif(not URL, reason="OPENSEARCH_URL is not set")


def test_given_a_live_cluster_when_cards_are_written_then_both_qualities_find_them() -> None:
    from groundwork.retrieval.opensearch import OpenSearchIndex, connect

    client = connect(URL or "", region=os.environ.get("AWS_REGION"),
                     service=os.environ.get("OPENSEARCH_SIGV4_SERVICE"))  # fmt: skip
    name = f"groundwork-test-{uuid.uuid4().hex[:8]}"
    index = OpenSearchIndex(client, HashingEmbedder(), index=name, pipeline=name)
    index.ensure()
    try:
        index.upsert([card("a", "the senate shall have power", tags=["law"]),
                      card("b", "rivers flood in spring")])  # fmt: skip
        index.upsert([card("a", "the senate shall have power", tags=["law"])])
        client.indices.refresh(index=name)
        deadline = time.time() + 90
        while index.count("main") < 2 and time.time() < deadline:
            time.sleep(2)

        assert index.count("main") == 2
        for quality in ("fast", "precise"):
            hits = index.search("senate power", SearchFilter(tags=["law"]), 5, quality=quality)  # type: ignore[arg-type]
            assert [h.card.id for h in hits] == ["a"]
    finally:
        client.indices.delete(index=name)
        client.transport.perform_request("DELETE", f"/_search/pipeline/{name}")
