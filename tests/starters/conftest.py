"""An ingest with proposals on, over the keyword index and the extractive composer."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from groundwork.ingest.pipeline import Ingestor
from groundwork.retrieval.factory import get_retriever
from groundwork.settings import Settings
from groundwork.starters.factory import starter_proposer
from groundwork.storage.factory import get_storage, get_stores
from groundwork.storage.stores import Stores

#: A short German text written for these tests: headings, prose, no questions of its own.
GERMAN = Path(__file__).with_name("brot.md")


@dataclass
class Service:
    settings: Settings
    ingestor: Ingestor
    stores: Stores


def service_on(settings: Settings) -> Service:
    proposer = starter_proposer(settings)
    assert proposer is not None
    return Service(
        settings,
        Ingestor(get_retriever(settings), get_storage(settings), proposer),
        get_stores(settings),
    )


@pytest.fixture
def service(tmp_path: Path) -> Service:
    return service_on(
        Settings(data_dir=tmp_path / "data", bootstrap_docs=False, retrieval="keyword")
    )
