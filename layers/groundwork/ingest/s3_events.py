"""Documents put in, or removed from, the documents bucket: the deployed stack's ingestion.

A key is ``{collection}/{path}``: the first segment names the collection, the rest is the
document's location, as ``groundwork ingest`` stores a file's path under the folder it was
given. The object is parsed by the same parsers (by its suffix), embedded and indexed, and its
source registered; a removal deletes the source and its passages.

Events may come twice or out of order. The bucket is read as it is now, not as the event
describes it: a created object whose ETag is no longer the key's (a newer version replaced it,
or it was removed) is skipped, since the later event ingests or deletes it; a removal of a key
that exists again is skipped likewise. Ingesting the same bytes twice changes nothing (the
source's content hash), so each version is ingested once.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import unquote_plus

from groundwork.ingest.pipeline import SUFFIXES, Ingestor, source_id

if TYPE_CHECKING:
    from groundwork.retrieval.base import Retriever
    from groundwork.storage.base import Storage

Outcome = Literal["added", "updated", "unchanged", "deleted", "skipped"]


class IngestFailed(RuntimeError):
    """A document could not be ingested: Lambda retries the event, then keeps it aside."""


@dataclass(frozen=True)
class DocumentEvent:
    bucket: str
    key: str
    etag: str | None
    removed: bool

    @classmethod
    def of(cls, record: dict[str, Any]) -> DocumentEvent:
        s3 = record["s3"]
        return cls(
            bucket=s3["bucket"]["name"],
            key=unquote_plus(s3["object"]["key"]),  # S3 events carry keys URL-encoded
            etag=s3["object"].get("eTag"),
            removed=record["eventName"].startswith("ObjectRemoved"),
        )

    @property
    def collection(self) -> str | None:
        parts = PurePosixPath(self.key).parts
        return parts[0] if len(parts) > 1 else None

    @property
    def location(self) -> str:
        return PurePosixPath(*PurePosixPath(self.key).parts[1:]).as_posix()


class DocumentIngestion:
    def __init__(self, s3: Any, retriever: Retriever, storage: Storage) -> None:
        self._s3 = s3
        self._ingestor = Ingestor(retriever, storage)
        self._retriever = retriever
        self._storage = storage

    def handle(self, event: DocumentEvent) -> Outcome:
        if event.collection is None or PurePosixPath(event.key).suffix.lower() not in SUFFIXES:
            return "skipped"  # not {collection}/{path} with a suffix a parser reads
        current = self._current_etag(event)
        if event.removed:
            return "skipped" if current is not None else self._delete(event)
        if current is None or (event.etag and current != event.etag.strip('"')):
            return "skipped"  # replaced or removed since: the later event handles it
        return self._ingest(event, current)

    def _current_etag(self, event: DocumentEvent) -> str | None:
        try:
            head = self._s3.head_object(Bucket=event.bucket, Key=event.key)
        except self._s3.exceptions.ClientError as error:
            if error.response.get("Error", {}).get("Code") in {"404", "NoSuchKey", "NotFound"}:
                return None
            raise
        etag: str = head["ETag"].strip('"')
        return etag

    def _delete(self, event: DocumentEvent) -> Outcome:
        assert event.collection is not None
        sid = source_id(event.collection, event.location)
        # The index first, whether or not the source was recorded: an ingest that died between
        # its writes may have left cards, and a record left by a kill here is deleted again
        # by the event's retry.
        removed = self._retriever.delete_source(sid)
        recorded = self._storage.delete_source(sid)
        return "deleted" if removed or recorded else "unchanged"

    def _ingest(self, event: DocumentEvent, etag: str) -> Outcome:
        assert event.collection is not None
        with tempfile.TemporaryDirectory() as scratch:
            root = Path(scratch)
            file = root / event.location
            file.parent.mkdir(parents=True, exist_ok=True)
            # That version only: a newer one put meanwhile is left to its own event.
            body = self._s3.get_object(Bucket=event.bucket, Key=event.key, IfMatch=etag)["Body"]
            file.write_bytes(body.read())
            report = self._ingestor.ingest([file], collection=event.collection, root=root)
        if report.failed:
            (reason,) = report.failed.values()
            raise IngestFailed(f"s3://{event.bucket}/{event.key}: {reason}")
        if report.added:
            return "added"
        return "updated" if report.updated else "unchanged"
