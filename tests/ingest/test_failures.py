"""Ingest is all or nothing per source, across the index and the source record: whatever fails
between the two writes (a full disk, ``kill -9``), what is searchable is listed, and
``--delete`` removes it. A lost index gets its cards back on the next ingest, and
``--check`` names the sources whose cards are missing."""

from __future__ import annotations

import json
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from groundwork.cli.main import main
from groundwork.ingest.pipeline import Ingestor, source_id
from groundwork.retrieval.base import SearchFilter
from groundwork.retrieval.embedded import EmbeddedIndex
from groundwork.storage.sqlite import SQLiteStorage
from tests.conftest import REPO
from tests.retrieval.conftest import HashingEmbedder, card

if TYPE_CHECKING:
    from groundwork.storage.base import SourceRecord

#: Six numbered paragraphs: six passages (a numbered paragraph starts a passage of its own).
TIDES = "# Tides\n\n" + "\n\n".join(f"{i}. Spring tides come twice a month." for i in range(1, 7))


def disk_full() -> sqlite3.OperationalError:
    """A real ``SQLITE_FULL`` ("database or disk is full"), from a database capped at 2 pages."""
    db = sqlite3.connect(":memory:")
    db.execute("PRAGMA max_page_count = 2")
    try:
        db.execute("CREATE TABLE t (x)")
        db.execute("INSERT INTO t VALUES (zeroblob(100000))")
    except sqlite3.OperationalError as error:
        return error
    raise AssertionError("the capped database took 100 kB")


class FullDiskStorage(SQLiteStorage):
    """The state file, whose disk fills up once the source's cards are in the index: the write
    that finishes the source fails, and, with ``deletes_fail``, so does deleting it."""

    def __init__(self, path: Path, *, deletes_fail: bool = False) -> None:
        super().__init__(path)
        self.deletes_fail = deletes_fail

    def put_source(self, source: SourceRecord) -> None:
        if source.content_hash:
            with self._db.write():
                raise disk_full()
        super().put_source(source)

    def delete_source(self, source_id: str) -> bool:
        if self.deletes_fail:
            with self._db.write():
                raise disk_full()
        return super().delete_source(source_id)


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    root = tmp_path / "docs"
    root.mkdir()
    (root / "tides.md").write_text(TIDES)
    return root


def _searchable(index: EmbeddedIndex) -> int:
    return len(index.search("tides", SearchFilter(collections=["c"]), 50, quality="fast"))


def test_given_a_full_disk_after_the_swap_when_ingesting_then_the_first_version_is_taken_back(
    tmp_path: Path, docs: Path
) -> None:
    index = EmbeddedIndex(tmp_path / "index.sqlite3", HashingEmbedder())
    storage = FullDiskStorage(tmp_path / "state.sqlite3")

    report = Ingestor(index, storage).ingest([docs / "tides.md"], collection="c", root=docs)

    (reason,) = report.failed.values()
    assert reason == "StorageUnavailable: the state file: database or disk is full"
    assert (report.added, _searchable(index), storage.list_sources("c")) == (0, 0, [])


def test_given_a_full_disk_that_also_refuses_the_undo_then_what_is_searchable_is_listed(
    tmp_path: Path, docs: Path
) -> None:
    index = EmbeddedIndex(tmp_path / "index.sqlite3", HashingEmbedder())
    storage = FullDiskStorage(tmp_path / "state.sqlite3", deletes_fail=True)
    ingestor = Ingestor(index, storage)

    report = ingestor.ingest([docs / "tides.md"], collection="c", root=docs)
    (listed,) = storage.list_sources("c")
    problems = ingestor.check("c")
    storage.deletes_fail = False  # space was freed
    deleted = ingestor.delete(docs / "tides.md", collection="c")

    assert report.failed
    assert _searchable(index) == 0  # taken out of the index by the undo
    assert (listed.location, listed.content_hash) == ("tides.md", "")
    assert [p.problem for p in problems] == ["its last ingest did not finish: ingest it again"]
    assert deleted.deleted == 1
    assert storage.list_sources("c") == []


def test_given_cards_that_no_record_lists_when_deleting_their_file_then_they_are_removed(
    tmp_path: Path, docs: Path
) -> None:
    # What an ingest by an older version left when its source record failed after the swap.
    index = EmbeddedIndex(tmp_path / "index.sqlite3", HashingEmbedder())
    storage = SQLiteStorage(tmp_path / "state.sqlite3")
    sid = source_id("c", "tides.md")
    index.upsert([card(f"{sid}-0000{i}", "Spring tides.", collection="c", source_id=sid)
                  for i in range(3)])  # fmt: skip
    ingestor = Ingestor(index, storage)

    problems = ingestor.check("c")
    report = ingestor.delete(docs / "tides.md", collection="c")

    assert [(p.source_id, p.location) for p in problems] == [(sid, None)]
    assert "3 passages of a source with no record" in problems[0].problem
    assert (report.deleted, report.cards) == (1, 3)
    assert index.count("c") == 0


def _kill_at(point: str, tmp_path: Path, docs: Path) -> None:
    marker = tmp_path / "reached"
    worker = subprocess.Popen(
        [sys.executable, "-m", "tests.ingest.reingest_worker",
         str(tmp_path), str(docs / "tides.md"), str(docs), point, str(marker)],
        cwd=REPO,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while not marker.exists():
            assert worker.poll() is None, "the ingest ended before the kill point"
            assert time.monotonic() < deadline, "the ingest never reached the kill point"
            time.sleep(0.05)
    finally:
        worker.send_signal(signal.SIGKILL)
        worker.wait(10)


@pytest.mark.parametrize(("point", "searchable"), [("embedding", 0), ("recording", 6)])
def test_given_a_first_ingest_killed_between_its_writes_then_delete_removes_what_it_left(
    tmp_path: Path, docs: Path, point: str, searchable: int
) -> None:
    """Killed with SIGKILL before the cards are swapped in, or after, before the source is
    finished: the source is listed (unfinished) either way, and ``--delete`` removes it."""
    _kill_at(point, tmp_path, docs)
    index = EmbeddedIndex(tmp_path / "index.sqlite3", HashingEmbedder())
    storage = SQLiteStorage(tmp_path / "state.sqlite3")
    ingestor = Ingestor(index, storage)

    (listed,) = storage.list_sources("c")
    held = _searchable(index)
    report = ingestor.delete(docs / "tides.md", collection="c")

    assert (listed.location, listed.content_hash, held) == ("tides.md", "", searchable)
    assert report.deleted == 1
    assert (_searchable(index), storage.list_sources("c")) == (0, [])


def test_given_a_first_ingest_killed_after_the_swap_then_the_next_ingest_finishes_it(
    tmp_path: Path, docs: Path
) -> None:
    _kill_at("recording", tmp_path, docs)
    index = EmbeddedIndex(tmp_path / "index.sqlite3", HashingEmbedder())
    storage = SQLiteStorage(tmp_path / "state.sqlite3")

    report = Ingestor(index, storage).ingest([docs / "tides.md"], collection="c", root=docs)

    assert (report.updated, report.unchanged, report.failed) == (1, 0, {})
    (listed,) = storage.list_sources("c")
    assert listed.content_hash
    assert listed.cards == _searchable(index) == 6


def test_given_a_lost_index_when_reingesting_unchanged_files_then_their_cards_come_back(
    tmp_path: Path, docs: Path
) -> None:
    storage = SQLiteStorage(tmp_path / "state.sqlite3")
    first = EmbeddedIndex(tmp_path / "index.sqlite3", HashingEmbedder())
    Ingestor(first, storage).ingest([docs / "tides.md"], collection="c", root=docs)
    first.close()
    (tmp_path / "index.sqlite3").unlink()  # the index is lost; the records are not
    index = EmbeddedIndex(tmp_path / "index.sqlite3", HashingEmbedder())
    ingestor = Ingestor(index, storage)

    problems = ingestor.check("c")
    report = ingestor.ingest([docs / "tides.md"], collection="c", root=docs)
    again = ingestor.ingest([docs / "tides.md"], collection="c", root=docs)

    assert [(p.location, p.problem) for p in problems] == [
        ("tides.md", "the index holds 0 of its 6 passages: ingest it again")
    ]
    assert (report.unchanged, report.updated, report.cards) == (0, 1, 6)
    assert _searchable(index) == 6
    assert (again.unchanged, ingestor.check("c")) == (1, [])


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv("GROUNDWORK_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("GROUNDWORK_RETRIEVAL", "keyword")
    _clear_factories()
    yield tmp_path / "data"
    _clear_factories()


def test_given_the_cli_when_checking_a_collection_then_it_names_what_is_missing_and_exits_1(
    data_dir: Path, docs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["ingest", str(docs), "--collection", "c"]) == 0
    assert main(["ingest", "--check", "--collection", "c"]) == 0
    _clear_factories()
    (data_dir / "index.sqlite3").unlink()
    capsys.readouterr()

    missing = main(["ingest", "--check", "--collection", "c"])
    out = capsys.readouterr().out

    assert missing == 1
    assert "tides.md: the index holds 0 of its 6 passages: ingest it again" in out
    assert main(["ingest", str(docs), "--collection", "c"]) == 0
    assert main(["ingest", "--check", "--collection", "c"]) == 0
    assert main(["ingest", "--collection", "c"]) == 2  # neither a PATH nor --check


def _clear_factories() -> None:
    from groundwork.retrieval.factory import get_retriever
    from groundwork.settings import get_settings
    from groundwork.storage.factory import get_storage, get_stores

    for cached in (get_settings, get_retriever, get_storage, get_stores):
        cached.cache_clear()


def test_given_a_file_name_that_is_not_utf8_when_ingested_then_the_summary_names_it(
    tmp_path: Path, data_dir: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "docs"
    root.mkdir()
    (root / "tides.md").write_text(TIDES)
    with open(bytes(root) + b"/caf\xe9.md", "w") as latin1_named:  # "café.md" in Latin-1
        latin1_named.write("# Caf\n\nCoffee is served at noon.\n")

    status = main(["ingest", str(root), "--collection", "c"])

    out, err = capfd.readouterr()
    assert status == 1
    assert "2 files: 1 added, 0 updated, 0 unchanged, 1 failed; 6 passages indexed" in out
    assert f"failed: {root}/caf\\xe9.md: ValueError: its name is not UTF-8 (caf\\xe9.md)" in err


# -- a real full filesystem, where the machine allows a private tmpfs ------------------------

FULL_DISK_WORKER = REPO / "tests" / "ingest" / "full_disk_worker.py"


def _private_tmpfs(mount_point: Path, command: list[str]) -> subprocess.CompletedProcess[str]:
    """``command`` run with a 1 MiB tmpfs on ``mount_point``, in a mount namespace of its own."""
    flags = ["-m"] if _is_root() else ["-r", "-m"]
    script = 'mount -t tmpfs -o size=1m tmpfs "$0" && exec "$@"'
    return subprocess.run(
        ["unshare", *flags, "--propagation", "private", "sh", "-c", script,
         str(mount_point), *command],
        cwd=REPO, capture_output=True, text=True, timeout=120,
    )  # fmt: skip


def _is_root() -> bool:
    import os

    return os.geteuid() == 0


@pytest.mark.parametrize("full", ["state", "index", "both"])
def test_given_a_filesystem_that_fills_up_when_ingesting_then_nothing_is_left_unlisted(
    tmp_path: Path, docs: Path, full: str
) -> None:
    """On a real tmpfs filled to the last byte (the state file, the index file or both on it):
    the ingest fails with the disk's reason, every searchable card belongs to a listed source,
    ``--delete`` leaves nothing, and once space is freed the file ingests."""
    if shutil.which("unshare") is None:
        pytest.skip("no unshare: a private tmpfs cannot be mounted here")
    small = tmp_path / "small"
    small.mkdir()
    done = _private_tmpfs(
        small, [sys.executable, str(FULL_DISK_WORKER), str(small), str(tmp_path), str(docs), full]
    )
    if done.returncode == 99:
        pytest.skip(f"this machine does not allow a private tmpfs: {done.stderr[-300:]}")
    assert done.returncode == 0, done.stderr[-3000:]
    outcome: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])

    assert "database or disk is full" in outcome["failed"]
    assert outcome["unlisted_cards"] == 0
    assert outcome["after_delete"] == {"cards": 0, "sources": 0}
    assert outcome["after_freeing"] == {"cards": 6, "sources": 1, "failed": {}}
