"""The third step of a batch: its lines' parts assembled into ``results.jsonl`` (in line order)
and ``summary.json``, by a function of its own, fed by a queue of its own.

The parts are listed in key order, which is line order (``parts/{batch}/{line:09d}.json``), a
page of 1,000 at a time, and read in parallel. Their lines go to a multipart upload, a part of
at least ``part_bytes`` at a time, so memory holds one part whatever the batch's size (S3
allows 10,000 parts: 80 GB of results at 8 MiB). When the function's time runs short, after a
part, the assembly goes on in a new message that carries where it stopped: the upload, the next
part's number, the last key read and the counts so far. A batch small enough for one part is
written with one PUT.

Assembling twice (a redelivered message, two workers that both counted a last line) writes the
same objects: the parts do not change once the batch is complete.
"""

from __future__ import annotations

import json
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, Field

from groundwork.batch.results import Layout

if TYPE_CHECKING:
    from groundwork.batch.progress import Progress

#: The summary lists this many failures, in line order; ``results.jsonl`` has every one.
FAILURES_LISTED = 100


class Totals(BaseModel):
    """The summary's counts, carried from one assembly message to the next."""

    total: int = 0
    succeeded: int = 0
    failed: int = 0
    score_sum: float = 0.0
    failures: list[dict[str, Any]] = Field(default_factory=list)

    def add(self, result: dict[str, Any]) -> None:
        self.total += 1
        if "response" in result:
            self.succeeded += 1
            self.score_sum += float(result["response"]["supportScore"])
        else:
            self.failed += 1
            if len(self.failures) < FAILURES_LISTED:
                self.failures.append(
                    {"line": result["line"], "id": result["id"], **result["error"]}
                )

    def summary(self, source: str, batch: str, results: str) -> dict[str, Any]:
        return {
            "input": source,
            "batch": batch,
            "results": results,
            "total": self.total,
            "succeeded": self.succeeded,
            "failed": self.failed,
            "mean_support_score": (
                round(self.score_sum / self.succeeded, 4) if self.succeeded else None
            ),
            "failures": self.failures,
            "failures_not_listed": self.failed - len(self.failures),
        }


class AssembleMessage(BaseModel):
    """Assemble a batch, from the start or from where an earlier message stopped."""

    batch: str
    input_bucket: str
    input_key: str
    output_bucket: str
    upload_id: str | None = None
    part: int = 1  # the next part's number
    after: str | None = None  # the last part key read
    totals: Totals = Field(default_factory=Totals)


Outcome = Literal["assembled", "continued", "skipped"]


@dataclass
class Assembler:
    s3: Any
    sqs: Any
    progress: Progress
    queue_url: str  # its own queue, for the message that goes on
    output_prefix: str = "results/"
    part_bytes: int = 8 << 20
    reads: int = 32
    page: int = 1000

    def assemble(self, body: str, *, deadline: float | None = None) -> Outcome:
        """Assemble what ``body`` (an :class:`AssembleMessage`) asks; ``deadline`` (a
        ``time.monotonic()`` value), passed after a part, sends the rest to a new message."""
        message = AssembleMessage.model_validate_json(body)
        if (
            message.upload_id is None
            and message.after is None
            and self.progress.assembled(message.batch)
        ):
            return "skipped"
        layout = Layout(message.output_bucket, self.output_prefix, message.input_key, message.batch)
        totals, part, after, upload = message.totals, message.part, message.after, message.upload_id
        buffer = bytearray()
        with ThreadPoolExecutor(max_workers=self.reads) as pool:
            while True:
                listing = self.s3.list_objects_v2(
                    Bucket=layout.bucket,
                    Prefix=layout.parts_prefix,
                    MaxKeys=self.page,
                    **({"StartAfter": after} if after else {}),
                )
                keys = [item["Key"] for item in listing.get("Contents", [])]
                for result in pool.map(lambda key: self._read(layout.bucket, key), keys):
                    totals.add(result)
                    buffer += json.dumps(result, ensure_ascii=False).encode() + b"\n"
                if keys:
                    after = keys[-1]
                if len(buffer) >= self.part_bytes:
                    upload = upload or self._start_upload(layout)
                    if not self._upload_part(layout, upload, part, buffer):
                        return "skipped"
                    part, buffer = part + 1, bytearray()
                    if deadline is not None and time.monotonic() > deadline:
                        self._go_on(message, upload, part, after, totals)
                        return "continued"
                if not listing.get("IsTruncated"):
                    break
        if upload is None:
            self.s3.put_object(
                Bucket=layout.bucket,
                Key=layout.results_key,
                Body=bytes(buffer),
                ContentType="application/x-ndjson",
            )
        elif not self._complete(layout, upload, part, buffer):
            return "skipped"
        source = f"s3://{message.input_bucket}/{layout.input_key}"
        summary = totals.summary(source, layout.batch, f"s3://{layout.bucket}/{layout.results_key}")
        self.s3.put_object(
            Bucket=layout.bucket,
            Key=layout.summary_key,
            Body=json.dumps(summary, ensure_ascii=False, indent=2).encode(),
            ContentType="application/json",
        )
        self.progress.mark_assembled(layout.batch)
        return "assembled"

    def _read(self, bucket: str, key: str) -> dict[str, Any]:
        part: dict[str, Any] = json.loads(self.s3.get_object(Bucket=bucket, Key=key)["Body"].read())
        return part

    def _start_upload(self, layout: Layout) -> str:
        created = self.s3.create_multipart_upload(
            Bucket=layout.bucket, Key=layout.results_key, ContentType="application/x-ndjson"
        )
        upload: str = created["UploadId"]
        return upload

    def _upload_part(self, layout: Layout, upload: str, part: int, data: bytearray) -> bool:
        """False when the upload is gone: another assembly of the batch completed it."""
        try:
            self.s3.upload_part(
                Bucket=layout.bucket,
                Key=layout.results_key,
                UploadId=upload,
                PartNumber=part,
                Body=bytes(data),
            )
        except self.s3.exceptions.NoSuchUpload:
            return False
        return True

    def _complete(self, layout: Layout, upload: str, part: int, rest: bytearray) -> bool:
        if rest and not self._upload_part(layout, upload, part, rest):
            return False
        parts = []
        pages = self.s3.get_paginator("list_parts").paginate(
            Bucket=layout.bucket, Key=layout.results_key, UploadId=upload
        )
        try:
            for page in pages:
                parts += [
                    {"ETag": p["ETag"], "PartNumber": p["PartNumber"]}
                    for p in page.get("Parts", [])
                ]
            self.s3.complete_multipart_upload(
                Bucket=layout.bucket,
                Key=layout.results_key,
                UploadId=upload,
                MultipartUpload={"Parts": parts},
            )
        except self.s3.exceptions.NoSuchUpload:
            return False
        return True

    def _go_on(
        self, message: AssembleMessage, upload: str, part: int, after: str | None, totals: Totals
    ) -> None:
        following = message.model_copy(
            update={"upload_id": upload, "part": part, "after": after, "totals": totals}
        )
        self.sqs.send_message(QueueUrl=self.queue_url, MessageBody=following.model_dump_json())
