"""Who sees what, on both stacks: SQLite with the embedded index, and DynamoDB with
OpenSearch, the moto server and the node of ``scripts/services.sh`` (without them the second
stack skips, except in CI, where it fails). Each module builds its world once per stack."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from groundwork.api.app import create_app
from groundwork.ingest.pipeline import Ingestor
from groundwork.retrieval.base import Retriever
from groundwork.retrieval.factory import get_retriever
from groundwork.settings import Settings
from groundwork.starters.factory import starter_proposer
from groundwork.storage.factory import get_storage, get_stores
from tests.conftest import unavailable
from tests.retrieval.conftest import opensearch_client  # noqa: F401 (a fixture)

HERE = Path(__file__).parent
STACKS = ["sqlite+embedded", "dynamodb+opensearch"]


@dataclass
class Stack:
    name: str
    settings: Settings
    keys: dict[str, str] = field(default_factory=dict)

    @property
    def retriever(self) -> Retriever:
        return get_retriever(self.settings)

    def ingest(self, folder: Path, collection: str) -> None:
        proposer = starter_proposer(self.settings)
        ingestor = Ingestor(self.retriever, get_storage(self.settings), proposer)
        report = ingestor.ingest(sorted(folder.iterdir()), collection=collection, root=folder)
        assert not report.failed, report.failed

    def user(self, user_id: str, **grants: dict[str, list[str]] | None) -> str:
        """A user with a key, granted each collection named: ``None`` is the whole of it."""
        accounts = get_stores(self.settings).accounts
        accounts.create_user(user_id, user_id.title())
        for collection, grant in grants.items():
            accounts.grant(user_id, collection, **(grant or {}))
        self.keys[user_id] = accounts.issue_api_key(user_id)
        return self.keys[user_id]

    def headers(self, user_id: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.keys[user_id]}"}

    def source_ids(self, collection: str) -> dict[str, str]:
        """Source ids by file name (``board-minutes.md``)."""
        return {s.location: s.id for s in get_storage(self.settings).list_sources(collection)}


@pytest.fixture(scope="module", params=STACKS)
def stack(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Stack]:
    data = tmp_path_factory.mktemp("data")
    common: dict[str, Any] = {"data_dir": data, "bootstrap_docs": False, "require_api_key": True}
    if request.param == "sqlite+embedded":
        yield Stack(request.param, Settings(**common))
        return
    endpoint = os.environ.get("GROUNDWORK_DYNAMODB_ENDPOINT_URL")
    if not endpoint:
        unavailable(
            "GROUNDWORK_DYNAMODB_ENDPOINT_URL is not set: run `eval $(scripts/services.sh up)`"
        )
    client = request.getfixturevalue("opensearch_client")
    name = f"groundwork-access-{uuid.uuid4().hex[:12]}"
    engine = os.environ.get("GROUNDWORK_OPENSEARCH_KNN_ENGINE", "faiss")
    settings = Settings(
        **common,
        storage="dynamodb",
        dynamodb_endpoint_url=endpoint,
        dynamodb_region=os.environ.get("GROUNDWORK_DYNAMODB_REGION", "us-east-1"),
        dynamodb_create_table=True,
        dynamodb_table=name,
        retrieval="opensearch",
        opensearch_url=os.environ["GROUNDWORK_OPENSEARCH_URL"],
        opensearch_auth=os.environ.get("GROUNDWORK_OPENSEARCH_AUTH", "none"),
        opensearch_region=os.environ.get("GROUNDWORK_OPENSEARCH_REGION"),
        opensearch_index=name,
        opensearch_knn_engine=engine,
        opensearch_replicas=0,  # one node: a replica could never be placed
    )
    try:
        with pytest.MonkeyPatch.context() as patch:
            # moto accepts any credentials; these keep boto3 from looking for real ones.
            patch.setenv("AWS_ACCESS_KEY_ID", "testing")
            patch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
            yield Stack(request.param, settings)
    finally:
        client.indices.delete(index=name, params={"ignore_unavailable": "true"})


def app_client(stack: Stack) -> Iterator[TestClient]:
    with TestClient(create_app(stack.settings)) as client:
        yield client


def documents(citations: list[dict[str, Any]]) -> set[str]:
    """The files the citations quote (a card's URL is its file and the heading's anchor)."""
    return {c["source_url"].split("#")[0] for c in citations}
