"""An ingest on a filesystem that is full, run by ``tests/ingest/test_failures.py`` inside a
mount namespace whose ``SMALL`` folder is a 1 MiB tmpfs.

``python tests/ingest/full_disk_worker.py SMALL ROOMY DOCS FULL``: the state file, the index
file or both (``FULL``: ``state``, ``index``, ``both``) live on ``SMALL``, the others on
``ROOMY``; ``SMALL`` is filled to its last byte, ``DOCS/tides.md`` is ingested into
collection ``c``, then deleted, then (the filler removed) ingested again. The last line of
stdout is what was found, as JSON. Exit status 99: no tmpfs was mounted on ``SMALL``.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from groundwork.ingest.pipeline import Ingestor  # noqa: E402
from groundwork.retrieval.base import SearchFilter  # noqa: E402
from groundwork.retrieval.embedded import EmbeddedIndex  # noqa: E402
from groundwork.storage.sqlite import SQLiteStorage  # noqa: E402
from tests.retrieval.conftest import HashingEmbedder  # noqa: E402


def _fill(folder: Path) -> Path:
    """Write zeros until the filesystem refuses one more byte."""
    filler = folder / "filler"
    descriptor = os.open(filler, os.O_WRONLY | os.O_CREAT)
    try:
        for size in (65536, 4096, 1):
            try:
                while True:
                    os.write(descriptor, b"\0" * size)
            except OSError:
                pass
    finally:
        os.close(descriptor)
    return filler


def _state(index: EmbeddedIndex, storage: SQLiteStorage) -> dict[str, int]:
    hits = index.search("tides", SearchFilter(collections=["c"]), 50, quality="fast")
    listed = {source.id for source in storage.list_sources("c")}
    return {
        "cards": len(hits),
        "sources": len(listed),
        "unlisted": sum(hit.card.source_id not in listed for hit in hits),
    }


def main(small: Path, roomy: Path, docs: Path, full: str) -> int:
    if os.statvfs(small).f_blocks * os.statvfs(small).f_frsize > 2 * 1024 * 1024:
        return 99
    state_dir = small if full in ("state", "both") else roomy
    index_dir = small if full in ("index", "both") else roomy
    index = EmbeddedIndex(index_dir / "index.sqlite3", HashingEmbedder())
    storage = SQLiteStorage(state_dir / "state.sqlite3")
    ingestor = Ingestor(index, storage)
    filler = _fill(small)

    report = ingestor.ingest([docs / "tides.md"], collection="c", root=docs)
    before = _state(index, storage)
    # Deleting needs no new space: SQLite's journal of a delete fits in what the file holds.
    ingestor.delete(docs / "tides.md", collection="c")
    after_delete = _state(index, storage)
    filler.unlink()
    again = ingestor.ingest([docs / "tides.md"], collection="c", root=docs)
    after_freeing = _state(index, storage)
    print(
        json.dumps(
            {
                "failed": " ".join(report.failed.values()),
                "unlisted_cards": before["unlisted"],
                "after_delete": {k: after_delete[k] for k in ("cards", "sources")},
                "after_freeing": {
                    "cards": after_freeing["cards"],
                    "sources": after_freeing["sources"],
                    "failed": again.failed,
                },
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3]), sys.argv[4]))
