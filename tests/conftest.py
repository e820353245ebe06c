"""Fixtures shared by every test: an isolated data directory and the app built on it."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import NoReturn

import pytest
from fastapi.testclient import TestClient

from groundwork.api.app import create_app
from groundwork.settings import Settings

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"


def unavailable(reason: str) -> NoReturn:
    """A live test's server or tool is missing: it skips, except in CI, where it fails (CI runs
    every live suite)."""
    if os.environ.get("CI") == "true":
        pytest.fail(reason)
    pytest.skip(reason)


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    """Embedded defaults in a fresh, empty data directory."""
    return Settings(data_dir=tmp_path / "data", bootstrap_docs=False)


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(settings)) as test_client:
        yield test_client
