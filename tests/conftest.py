"""Fixtures shared by every test: an isolated data directory and the app built on it."""

from __future__ import annotations

import os
import shutil
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


@pytest.fixture(scope="session")
def readme_checkout(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A checkout holding this repository's README alone, for a first start to seed the default
    collection from: tens of passages, where the README and every doc are 500 (nine minutes
    to embed on two cores). Its texts are remembered once embedded (``embeddings.memory``), so
    the tests seeding from it after the first cost little more."""
    checkout = tmp_path_factory.mktemp("readme-checkout")
    shutil.copyfile(REPO / "README.md", checkout / "README.md")
    return checkout


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    """Embedded defaults in a fresh, empty data directory."""
    return Settings(data_dir=tmp_path / "data", bootstrap_docs=False)


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(settings)) as test_client:
        yield test_client
