"""A grounding-only app: no documents to ingest, so each test starts fast."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from groundwork.api.app import create_app
from groundwork.grounding.base import Verifier
from groundwork.grounding.heuristic import HeuristicVerifier
from groundwork.settings import Settings


@pytest.fixture(scope="module")
def grounding_client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    data: Path = tmp_path_factory.mktemp("grounding") / "data"
    settings = Settings(data_dir=data, bootstrap_docs=False)
    with TestClient(create_app(settings)) as client:
        yield client


@pytest.fixture(scope="session")
def verifier() -> Verifier:
    return HeuristicVerifier()
