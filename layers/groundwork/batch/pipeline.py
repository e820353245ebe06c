"""The two steps of a batch: enqueue an input object's lines, process one line's message."""

from __future__ import annotations

import hashlib
import json
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from groundwork.api.schemas.grounding import CheckGroundingResponse
from groundwork.batch.lines import parse_line, read_lines
from groundwork.batch.results import Layout, failure, success, summarize, to_jsonl
from groundwork.errors import ApiError
from groundwork.grounding.service import check

if TYPE_CHECKING:
    from groundwork.batch.progress import Progress
    from groundwork.grounding.base import Verifier

#: SQS's SendMessageBatch limit.
_SEND_BATCH = 10
#: Parts read at once when a batch is assembled.
_PARALLEL_READS = 16


class LineMessage(BaseModel):
    """One SQS message: where a validated line's bytes are. The worker reads them back from
    the object (only that version, by ETag), so a message stays small whatever the request's
    size and SQS's 256 KiB limit never drops a line."""

    batch: str
    bucket: str
    key: str
    etag: str
    line: int
    start: int
    end: int


@dataclass(frozen=True)
class EnqueueReport:
    batch: str
    lines: int
    enqueued: int
    rejected: int


@dataclass
class BatchPipeline:
    s3: Any
    sqs: Any
    progress: Progress
    verifier: Verifier
    queue_url: str
    output_prefix: str = "results/"
    output_bucket: str | None = None  # None: beside the input

    def enqueue(self, bucket: str, key: str) -> EnqueueReport | None:
        """Send one message per good line and write a failure result for each bad one.

        None when the object is itself an output (same bucket, output prefix), or when this
        version of it was already enqueued.
        """
        if (self.output_bucket or bucket) == bucket and key.startswith(self.output_prefix):
            return None
        obj = self.s3.get_object(Bucket=bucket, Key=key)
        etag: str = obj["ETag"]
        lines = read_lines(obj["Body"].read())
        batch = batch_id(bucket, key, etag)
        if not self.progress.start(batch, total=len(lines)):
            return None
        good = [line for line in lines if line.error is None]
        for first in range(0, len(good), _SEND_BATCH):
            entries = [
                {
                    "Id": str(line.number),
                    "MessageBody": LineMessage(
                        batch=batch,
                        bucket=bucket,
                        key=key,
                        etag=etag,
                        line=line.number,
                        start=line.start,
                        end=line.end,
                    ).model_dump_json(),
                }
                for line in good[first : first + _SEND_BATCH]
            ]
            sent = self.sqs.send_message_batch(QueueUrl=self.queue_url, Entries=entries)
            if sent.get("Failed"):
                # Raising lets the event be retried; lines already sent are counted once.
                raise RuntimeError(f"SQS refused {len(sent['Failed'])} messages: {sent['Failed']}")
        layout = self._layout(bucket, key, batch)
        for line in lines:
            if line.error is not None:
                self._write_part(layout, failure(line.number, line.id, line.error))
                self.progress.mark_done(batch, line.number)
        self.progress.enqueued(batch)
        if self.progress.complete(batch):
            self.finalize(layout, bucket)
        return EnqueueReport(batch, len(lines), len(good), len(lines) - len(good))

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
        self.progress.mark_done(message.batch, message.line)
        if self.progress.complete(message.batch):
            self.finalize(layout, message.bucket)
        return result

    def finalize(self, layout: Layout, input_bucket: str) -> None:
        """Assemble the parts into ``results.jsonl`` (in line order) and ``summary.json``.

        Writing the same parts gives the same objects, so two workers finishing together, or a
        retried message, may both finalize.
        """

        def read(key: str) -> dict[str, Any]:
            part: dict[str, Any] = json.loads(
                self.s3.get_object(Bucket=layout.bucket, Key=key)["Body"].read()
            )
            return part

        # One GET per line: in parallel, so that a batch of thousands of lines is assembled
        # well within the worker's time limit (boto3 clients are thread-safe).
        with ThreadPoolExecutor(max_workers=_PARALLEL_READS) as pool:
            results = list(pool.map(read, self._part_keys(layout)))
        results.sort(key=lambda result: int(result["line"]))
        source = f"s3://{input_bucket}/{layout.input_key}"
        summary = summarize(source, results)
        summary["batch"] = layout.batch
        summary["results"] = f"s3://{layout.bucket}/{layout.results_key}"
        self.s3.put_object(
            Bucket=layout.bucket,
            Key=layout.results_key,
            Body=to_jsonl(results),
            ContentType="application/x-ndjson",
        )
        self.s3.put_object(
            Bucket=layout.bucket,
            Key=layout.summary_key,
            Body=json.dumps(summary, ensure_ascii=False, indent=2).encode(),
            ContentType="application/json",
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

    def _part_keys(self, layout: Layout) -> list[str]:
        keys: list[str] = []
        pages = self.s3.get_paginator("list_objects_v2").paginate(
            Bucket=layout.bucket, Prefix=layout.parts_prefix
        )
        for page in pages:
            keys.extend(item["Key"] for item in page.get("Contents", []))
        return keys


def batch_id(bucket: str, key: str, etag: str) -> str:
    """One id per version of an input object."""
    return hashlib.sha256(f"{bucket}\0{key}\0{etag}".encode()).hexdigest()[:32]
