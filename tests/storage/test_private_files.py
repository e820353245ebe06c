"""State files are their owner's alone: the data directory 0700, every file in it 0600."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from groundwork.api.app import create_app
from groundwork.settings import Settings
from tests.chat.fixtures import ask, bearer, seed


@pytest.fixture
def usual_umask() -> Iterator[None]:
    """The umask most systems have: files 0644 and directories 0755 unless asked otherwise."""
    previous = os.umask(0o022)
    yield
    os.umask(previous)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.mark.usefixtures("usual_umask")
@pytest.mark.parametrize("retrieval", ["keyword", "embedded"])
def test_given_a_new_data_dir_when_the_service_writes_state_then_only_its_owner_reads_it(
    tmp_path: Path, retrieval: str
) -> None:
    data_dir = tmp_path / "data"
    world = seed(Settings(data_dir=data_dir, bootstrap_docs=False, retrieval=retrieval))
    with TestClient(create_app(world.settings)) as client:
        answered = client.post(
            "/v1/chat", json=ask("Who made us?"), headers=bearer(world.keys["alice"])
        )

    files = sorted(path for path in data_dir.rglob("*") if path.is_file())
    assert answered.status_code == 200
    assert {path.name for path in files} >= {"state.sqlite3", "state.sqlite3-wal", "index.sqlite3"}
    assert mode(data_dir) == 0o700
    assert {path.name: oct(mode(path)) for path in files} == {
        path.name: oct(0o600) for path in files
    }
