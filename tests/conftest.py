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


def checkout(folder: Path, docs: tuple[str, ...] = ()) -> Path:
    """``folder`` made a checkout of this repository's README and the pages ``docs`` of its
    docs/, for a first start to seed the default collection from: the README and every doc are
    500 passages, nine minutes to embed on two cores."""
    folder.mkdir(exist_ok=True)
    shutil.copyfile(REPO / "README.md", folder / "README.md")
    if docs:
        (folder / "docs").mkdir()
    for name in docs:
        shutil.copyfile(REPO / "docs" / name, folder / "docs" / name)
    return folder


@pytest.fixture(scope="session")
def readme_checkout(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A checkout holding the README alone: tens of passages. Its texts are remembered once
    embedded (``embeddings.memory``), so the tests seeding from it after the first cost little
    more."""
    return checkout(tmp_path_factory.mktemp("readme-checkout"))


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    """Embedded defaults in a fresh, empty data directory."""
    return Settings(data_dir=tmp_path / "data", bootstrap_docs=False)


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(settings)) as test_client:
        yield test_client
