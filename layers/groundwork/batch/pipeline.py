"""The first two steps of a batch: enqueue an input object's lines, process one line's message.
The third, assembling the results, is :mod:`groundwork.batch.assembly`'s."""

from __future__ import annotations

import hashlib
import json
import time
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from groundwork.api.schemas.grounding import CheckGroundingResponse
from groundwork.batch.assembly import AssembleMessage
from groundwork.batch.lines import LineReader, parse_line, stream_lines
from groundwork.batch.progress import Checkpoint, shard_of
from groundwork.batch.results import Layout, failure, success
from groundwork.errors import ApiError
from groundwork.grounding.service import check

if TYPE_CHECKING:
    from collections.abc import Callable
    from concurrent.futures import Future

    from groundwork.batch.lines import Line
    from groundwork.batch.progress import Progress
    from groundwork.grounding.base import Verifier

#: SQS's SendMessageBatch limit.
_SEND_BATCH = 10
#: The object is read in chunks of this size: the enqueue function's memory does not grow
#: with the input.
_CHUNK_BYTES = 1 << 20
#: Shards of a batch's count (progress): one per this many bytes of input, at most the limit.
_SHARD_BYTES = 256 * 1024
#: Tries of a message SQS refused (throttled, say) before the enqueueing stops.
_SEND_ATTEMPTS = 4


class LineMessage(BaseModel):
    """One SQS message: where a validated line's bytes are, and the shard that counts it. The
    worker reads the line back from the object (only that version, by ETag), so a message stays
    small whatever the request's size and SQS's size limit never drops a line."""

    batch: str
    bucket: str
    key: str
    etag: str
    line: int
    start: int
    end: int
    shard: int
    shards: int


@dataclass(frozen=True)
class EnqueueReport:
    batch: str
    lines: int
    enqueued: int
    rejected: int


class EnqueueUnfinished(RuntimeError):
    """The function's time ran short: Lambda retries the event, and the retry goes on from the
    last checkpoint."""


@dataclass
class BatchPipeline:
    s3: Any
    sqs: Any
    progress: Progress
    verifier: Verifier
    queue_url: str
    assemble_queue_url: str
    output_prefix: str = "results/"
    output_bucket: str | None = None  # None: beside the input
    #: Threads that send messages (and write rejected lines' results) while the object is read.
    senders: int = 16
    #: A checkpoint every this many lines: a retry reads the object again from the top, but
    #: validates and sends only what follows it.
    checkpoint_lines: int = 10_000
    max_shards: int = 64

    def enqueue(
        self, bucket: str, key: str, *, deadline: float | None = None
    ) -> EnqueueReport | None:
        """Send one message per good line and write a failure result for each bad one.

        None when the object is itself an output (same bucket, output prefix), or when this
        version of it was already enqueued. The object is streamed; ``deadline`` (a
        ``time.monotonic()`` value) is checked at each checkpoint, and passed raises
        :class:`EnqueueUnfinished` so that a retry goes on from there.
        """
        if (self.output_bucket or bucket) == bucket and key.startswith(self.output_prefix):
            return None
        obj = self.s3.get_object(Bucket=bucket, Key=key)
        etag: str = obj["ETag"]
        batch = batch_id(bucket, key, etag)
        shards = max(1, min(self.max_shards, int(obj["ContentLength"]) // _SHARD_BYTES + 1))
        state = self.progress.start(batch, shards)
        if state.sealed:
            obj["Body"].close()
            return None
        layout = self._layout(bucket, key, batch)
        resumed = state.checkpoint
        lines, enqueued, rejected = resumed.lines, resumed.enqueued, resumed.rejected
        reader = LineReader()
        since_checkpoint = 0
        with _Parallel(self.senders) as parallel:
            batch_of_messages: list[dict[str, str]] = []
            for raw in stream_lines(obj["Body"].iter_chunks(_CHUNK_BYTES)):
                if raw.start < resumed.offset:  # sent or rejected by an earlier attempt
                    reader.remember(raw)
                    continue
                line = reader.read(raw)
                shard = shard_of(lines, state.shards)
                lines += 1
                if line.error is None:
                    message = LineMessage(
                        batch=batch,
                        bucket=bucket,
                        key=key,
                        etag=etag,
                        line=line.number,
                        start=line.start,
                        end=line.end,
                        shard=shard,
                        shards=state.shards,
                    )
                    batch_of_messages.append(
                        {"Id": str(line.number), "MessageBody": message.model_dump_json()}
                    )
                    if len(batch_of_messages) == _SEND_BATCH:
                        parallel.submit(self._send, batch_of_messages)
                        batch_of_messages = []
                    enqueued += 1
                else:
                    parallel.submit(self._reject, layout, line, shard, state.shards)
                    rejected += 1
                since_checkpoint += 1
                if since_checkpoint >= self.checkpoint_lines:
                    if batch_of_messages:
                        parallel.submit(self._send, batch_of_messages)
                        batch_of_messages = []
                    parallel.wait()  # everything before this line's end is sent or written
                    self.progress.save(batch, Checkpoint(raw.end, lines, enqueued, rejected))
                    since_checkpoint = 0
                    if deadline is not None and time.monotonic() > deadline:
                        obj["Body"].close()
                        raise EnqueueUnfinished(
                            f"batch {batch}: {lines} lines read, stopped at byte {raw.end} "
                            "for the time limit; the retry goes on from there"
                        )
            if batch_of_messages:
                parallel.submit(self._send, batch_of_messages)
            parallel.wait()
        if self.progress.seal(batch, lines):
            self._assemble_later(layout, bucket)
        return EnqueueReport(batch, lines, enqueued, rejected)

    def process(self, body: str) -> dict[str, Any]:
        """Check one line and count it done; returns its result line.

        A body that is not a ``LineMessage`` raises (the message is retried, then lands in the
        dead-letter queue); a line that fails its check is a result with the reason, not a retry.
        """
        message = LineMessage.model_validate_json(body)
        obj = self.s3.get_object(
            Bucket=message.bucket,
            Key=message.key,
            Range=f"bytes={message.start}-{message.end - 1}",
            IfMatch=message.etag,
        )
        line = parse_line(message.line, message.start, message.end, obj["Body"].read())
        result: dict[str, Any]
        if line.request is None:
            assert line.error is not None
            result = failure(line.number, line.id, line.error)
        else:
            assert line.id is not None
            try:
                response = check(line.request.to_domain(), self.verifier)
            except ApiError as exc:
                result = failure(line.number, line.id, exc)
            else:
                body_json = CheckGroundingResponse.from_domain(response).model_dump(
                    by_alias=True, exclude_none=True
                )
                result = success(line.number, line.id, body_json)
        layout = self._layout(message.bucket, message.key, message.batch)
        self._write_part(layout, result)
        if self.progress.mark_done(message.batch, message.line, message.shard, message.shards):
            self._assemble_later(layout, message.bucket)
        return result

    def _send(self, entries: list[dict[str, str]]) -> None:
        for attempt in range(_SEND_ATTEMPTS):
            sent = self.sqs.send_message_batch(QueueUrl=self.queue_url, Entries=entries)
            failed = {item["Id"] for item in sent.get("Failed", [])}
            if not failed:
                return
            entries = [entry for entry in entries if entry["Id"] in failed]
            time.sleep(0.1 * 2**attempt)
        # Raising stops the enqueueing; the retry sends from the last checkpoint, and the
        # markers keep lines sent twice from being counted twice.
        raise RuntimeError(f"SQS refused {len(entries)} messages: {sent['Failed']}")

    def _reject(self, layout: Layout, line: Line, shard: int, shards: int) -> None:
        assert line.error is not None
        self._write_part(layout, failure(line.number, line.id, line.error))
        # Before the batch is sealed no shard can close: the result is False.
        self.progress.mark_done(layout.batch, line.number, shard, shards)

    def _assemble_later(self, layout: Layout, input_bucket: str) -> None:
        """Every line is done: the assembly step writes ``results.jsonl`` and ``summary.json``."""
        message = AssembleMessage(
            batch=layout.batch,
            input_bucket=input_bucket,
            input_key=layout.input_key,
            output_bucket=layout.bucket,
        )
        self.sqs.send_message(
            QueueUrl=self.assemble_queue_url, MessageBody=message.model_dump_json()
        )

    def _layout(self, bucket: str, key: str, batch: str) -> Layout:
        return Layout(self.output_bucket or bucket, self.output_prefix, key, batch)

    def _write_part(self, layout: Layout, result: dict[str, Any]) -> None:
        self.s3.put_object(
            Bucket=layout.bucket,
            Key=layout.part_key(int(result["line"])),
            Body=json.dumps(result, ensure_ascii=False).encode(),
            ContentType="application/json",
        )


class _Parallel:
    """A thread pool with a bounded number of tasks in flight (memory stays flat however many
    lines are submitted); a task's exception is raised where it is collected."""

    def __init__(self, threads: int) -> None:
        self._pool = ThreadPoolExecutor(max_workers=threads)
        self._pending: deque[Future[None]] = deque()
        self._limit = 4 * threads

    def __enter__(self) -> _Parallel:
        return self

    def __exit__(self, *_: object) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)

    def submit(self, task: Callable[..., None], *args: Any) -> None:
        while len(self._pending) >= self._limit:
            self._pending.popleft().result()
        self._pending.append(self._pool.submit(task, *args))

    def wait(self) -> None:
        while self._pending:
            self._pending.popleft().result()


def batch_id(bucket: str, key: str, etag: str) -> str:
    """One id per version of an input object."""
    return hashlib.sha256(f"{bucket}\0{key}\0{etag}".encode()).hexdigest()[:32]
