"""Fixtures shared by every test: an isolated data directory and the app built on it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from groundwork.api.app import create_app
from groundwork.settings import Settings

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    """Embedded defaults in a fresh, empty data directory."""
    return Settings(data_dir=tmp_path / "data", bootstrap_docs=False)


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(settings)) as test_client:
        yield test_client
