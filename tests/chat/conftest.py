"""An app over the tiny world of ``fixtures``, keyword retrieval only: no model loads."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from groundwork.api.app import create_app
from groundwork.settings import Settings
from tests.chat.fixtures import SlowGenerator, World, answer_with, seed


@pytest.fixture
def world(tmp_path: Path) -> World:
    settings = Settings(
        data_dir=tmp_path / "data", bootstrap_docs=False, retrieval="keyword", chat_wait_seconds=10
    )
    return seed(settings)


@pytest.fixture
def generator() -> SlowGenerator:
    return SlowGenerator()


@pytest.fixture
def client(world: World, generator: SlowGenerator) -> Iterator[TestClient]:
    app = create_app(world.settings)
    answer_with(app, world.settings, generator)
    with TestClient(app) as test_client:
        yield test_client
