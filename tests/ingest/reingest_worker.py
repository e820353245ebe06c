"""A re-ingest that stops at a chosen point and waits there to be killed (``kill -9``).

``python -m tests.ingest.reingest_worker DATA FILE ROOT POINT MARKER``: ingests ``FILE`` into
collection ``c`` of the index and state under ``DATA``; at ``POINT`` it writes ``MARKER`` and
sleeps. ``embedding``: while the new cards are embedded. ``recording``: when the source's new
hash is about to be written, after the cards were swapped.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from groundwork.ingest.pipeline import Ingestor
from groundwork.retrieval.embedded import EmbeddedIndex
from groundwork.storage.sqlite import SQLiteStorage
from tests.retrieval.conftest import HashingEmbedder

if TYPE_CHECKING:
    from collections.abc import Sequence

    import numpy as np
    import numpy.typing as npt

    from groundwork.embeddings.base import Role
    from groundwork.storage.base import SourceRecord


def _stop(marker: Path) -> None:
    marker.write_text("reached")
    time.sleep(120)


class StoppingEmbedder(HashingEmbedder):
    def __init__(self, marker: Path) -> None:
        super().__init__()
        self.marker = marker

    def embed(self, texts: Sequence[str], *, role: Role = "passage") -> npt.NDArray[np.float32]:
        _stop(self.marker)
        return super().embed(texts, role=role)


class StoppingStorage(SQLiteStorage):
    def __init__(self, path: Path, marker: Path) -> None:
        super().__init__(path)
        self.marker = marker

    def put_source(self, source: SourceRecord) -> None:
        if source.content_hash:
            _stop(self.marker)
        super().put_source(source)


def main(data: str, file: str, root: str, point: str, marker: str) -> None:
    stop = Path(marker)
    embedder = StoppingEmbedder(stop) if point == "embedding" else HashingEmbedder()
    storage = (
        StoppingStorage(Path(data) / "state.sqlite3", stop)
        if point == "recording"
        else SQLiteStorage(Path(data) / "state.sqlite3")
    )
    index = EmbeddedIndex(Path(data) / "index.sqlite3", embedder)
    Ingestor(index, storage).ingest([Path(file)], collection="c", root=Path(root))


if __name__ == "__main__":
    main(*sys.argv[1:6])
