"""The default collection of the docs: indexed on a first start, file by file aloud, and
indexed again when an older version wrote its cards without source locations."""

from __future__ import annotations

import logging
import multiprocessing
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from groundwork.api.app import create_app
from groundwork.api.startup import start, warn_unlocated
from groundwork.auth.local import LOCAL_USER
from groundwork.domain.cards import Card
from groundwork.ingest.bootstrap import ingest_docs
from groundwork.retrieval.base import SearchFilter
from groundwork.retrieval.factory import get_retriever
from groundwork.retrieval.keyword import KeywordIndex
from groundwork.settings import Settings
from groundwork.storage.factory import get_storage, get_stores
from groundwork.storage.sqlite import SQLiteStorage


def _docs(root: Path) -> Path:
    (root / "docs").mkdir(parents=True)
    (root / "README.md").write_text("# Tool\n\n## Run\n\nRun the tool with its one command.\n")
    (root / "docs" / "guide.md").write_text("# Guide\n\nThe guide explains the options.\n")
    return root


def test_given_an_empty_collection_when_started_then_each_document_is_said_as_indexed(
    tmp_path: Path, index: KeywordIndex, storage: SQLiteStorage
) -> None:
    root = _docs(tmp_path / "repo")
    said: list[str] = []

    report = ingest_docs(index, storage, root, "default", say=said.append)

    assert report is not None
    assert report.added == 2
    assert said[0] == f"indexing 2 documents of {root} into `default` (first start)"
    assert said[1:3] == ["  [1/2] README.md: 1 passages", "  [2/2] docs/guide.md: 1 passages"]
    assert said[3].startswith("indexed 2 documents (2 passages) in ")
    assert ingest_docs(index, storage, root, "default", say=said.append) is None  # nothing to do


@pytest.mark.parametrize("stopped", ["before the guide", "while writing the guide"])
def test_given_a_first_start_stopped_midway_when_started_again_then_the_rest_is_indexed(
    tmp_path: Path, index: KeywordIndex, storage: SQLiteStorage, stopped: str
) -> None:
    """Given a first start stopped after the README (the guide never ingested, or its record
    left unfinished), when the service starts again, then the guide is indexed and the README
    is not read again."""
    root = _docs(tmp_path / "repo")
    ingest_docs(index, storage, root, "default", say=lambda _: None)
    (guide,) = [s for s in storage.list_sources("default") if s.location == "docs/guide.md"]
    index.delete_source(guide.id)
    if stopped == "before the guide":
        storage.delete_source(guide.id)
    else:
        storage.put_source(guide.model_copy(update={"content_hash": ""}))
    said: list[str] = []

    report = ingest_docs(index, storage, root, "default", say=said.append)

    assert report is not None
    assert (report.unchanged, report.cards) == (1, 1)
    assert said[0] == (
        f"indexing 2 documents of {root} into `default` "
        "(1 not indexed yet: a start stopped before it was done)"
    )
    assert said[1:3] == ["  [1/2] README.md: unchanged", "  [2/2] docs/guide.md: 1 passages"]
    assert index.source_cards("default") == {s.id: 1 for s in storage.list_sources("default")}
    assert ingest_docs(index, storage, root, "default", say=said.append) is None


def test_given_cards_from_before_locations_when_started_then_the_docs_are_indexed_again(
    tmp_path: Path, index: KeywordIndex, storage: SQLiteStorage
) -> None:
    """Given the docs as an older version indexed them (cards without a character range, the
    sources' hashes without the parser version), when the service starts, then they are read
    again and every card points into its document."""
    root = _docs(tmp_path / "repo")
    ingest_docs(index, storage, root, "default", say=lambda _: None)
    everything = SearchFilter(collections=["default"])
    old = [hit.card for hit in index.search("tool guide options command", everything, 10)]
    index.upsert([card.model_copy(update={"char_start": None, "char_end": None}) for card in old])
    for source in storage.list_sources("default"):
        storage.put_source(source.model_copy(update={"content_hash": "from-an-older-version"}))
    assert index.unlocated() == {"default": 2}
    said: list[str] = []

    report = ingest_docs(index, storage, root, "default", say=said.append)

    assert report is not None
    assert report.updated == 2
    assert "without source locations" in said[0]
    assert index.unlocated() == {}


@pytest.mark.parametrize("local_user", [True, False])
def test_given_a_first_start_of_serve_when_it_starts_then_the_docs_are_seeded_beside_it(
    tmp_path: Path, local_user: bool
) -> None:
    """Given the first start of `groundwork serve` (the docs seeded aside), when the app starts,
    then it returns with the default collection registered (the local user's, when on), and the
    docs come in from a process of its own; a later start finds nothing to do and starts none."""
    root = _docs(tmp_path / "repo")
    settings = Settings(
        data_dir=tmp_path / "data",
        docs_dir=root,
        retrieval="keyword",
        local_user=local_user,
        starters_per_source=0,
    )

    seeding = start(settings, docs_aside=True)

    accounts = get_stores(settings).accounts
    assert accounts.get_collection("default") is not None
    assert accounts.can_see(LOCAL_USER, "default") is local_user
    assert seeding is not None
    assert _seeding() == [seeding.process]
    seeding.process.join(120)
    assert seeding.process.exitcode == 0
    assert seeding.running() is None
    assert seeding.done.value == seeding.documents == 2
    sources = get_storage(settings).list_sources("default")
    assert sorted(s.location for s in sources) == ["README.md", "docs/guide.md"]
    assert all(s.content_hash for s in sources)
    assert start(settings, docs_aside=True) is None
    assert _seeding() == []


def test_given_docs_seeded_beside_the_service_when_health_is_asked_then_it_says_how_far(
    tmp_path: Path,
) -> None:
    """Given `groundwork serve`'s first start, when /health is asked while the docs go in, then
    it says into which collection and how many of how many; once they are in, it says nothing
    of them."""
    settings = Settings(
        data_dir=tmp_path / "data",
        docs_dir=_docs(tmp_path / "repo"),
        retrieval="keyword",
        starters_per_source=0,
    )

    with TestClient(create_app(settings, docs_aside=True)) as client:
        # The indexing process is spawned: a fresh interpreter that takes a second to import.
        during = client.get("/health").json()
        (seeding,) = _seeding()
        seeding.join(120)
        after = client.get("/health").json()

    assert during["indexing"]["collection"] == "default"
    assert during["indexing"]["documents"] == 2
    assert during["indexing"]["done"] in (0, 1, 2)
    assert after == {"status": "ok", "version": during["version"]}


def _seeding() -> list[multiprocessing.process.BaseProcess]:
    return [p for p in multiprocessing.active_children() if p.name == "groundwork-docs"]


def test_given_cards_without_locations_when_serve_starts_then_it_says_how_to_add_them(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    settings = Settings(data_dir=tmp_path / "data", retrieval="keyword", bootstrap_docs=False)
    get_retriever(settings).upsert(
        [Card(id="a-1", collection="archive", source_id="a", text="Maps are lent.", url="a.md")]
    )

    with caplog.at_level(logging.WARNING):
        warn_unlocated(settings)

    (record,) = caplog.records
    assert "collection archive: 1 passages were indexed by an older version" in record.message
    assert "groundwork ingest PATH --collection archive" in record.message
