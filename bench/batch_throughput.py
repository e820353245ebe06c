"""Batch grounding at scale through the deployed shape: lines/s, the enqueue function's memory.

Each run puts one JSONL object of ``--lines`` lines (at most about 750 bytes, 570 on average: a
WiCE dev claim with its evidence's first sentences as facts, every 50th line bad) through the
functions that ``sam build`` built, each under the Lambda Runtime Interface Emulator as
``groundwork serve --lambda`` runs them, with S3, SQS and DynamoDB on the moto server of
``scripts/services.sh``:
the enqueue function (invoked as S3 would), ``--workers`` worker functions polled as Lambda's
SQS event source does (ten messages a call, the failed ones left for a retry, a dead-letter
queue after 5 receives), and the assembly function on its queue. Every function runs in a
fresh environment, so the enqueue function's peak memory (``VmHWM`` of its runtime process) is
its own for that input.

It prints, per input: the enqueue's time and peak memory, the workers' time and lines/s, the
assembly's time, how many messages were received more than once, how many reached the
dead-letter queue; then what a million lines would take with N workers, from the rates
measured (the workers' scale with N while the queue has lines; the enqueue and the assembly
are one function each). moto serializes DynamoDB's requests, so it never cancels a
transaction: conflicts are measured by ``tests/serverless/test_batch_contention.py``'s
simulation, not here.

Run (CPU-heavy; niced):
    eval "$(scripts/services.sh up moto)" && scripts/lambda_local.sh build
    nice -n 10 .venv/bin/python bench/batch_throughput.py --lines 10000 100000 --workers 0
    nice -n 10 .venv/bin/python bench/batch_throughput.py --lines 10000 --workers 3
(``--workers 0``: the enqueue alone, its time and memory; docs/deploy.md has the figures.)
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import tempfile
import threading
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import boto3
import httpx

from groundwork.local_lambda import emulator
from groundwork.local_lambda.emulator import INVOKE_PATH, Environment
from groundwork.local_lambda.functions import load
from groundwork.local_lambda.stack import default_build_dir, default_tools_dir

REPO = Path(__file__).resolve().parents[1]
WICE = REPO.parent / "shared" / "data" / "eval" / "wice_claim_dev.jsonl"
LINE_BYTES = 750
RECEIVES = 5  # the template's BatchMaxReceiveCount
MILLION = 1_000_000


def requests(count: int) -> bytes:
    """``count`` lines of at most about LINE_BYTES bytes; every 50th has no id (a bad line)."""
    if WICE.is_file():
        rows = [json.loads(line) for line in WICE.read_text().splitlines() if line.strip()]
        bodies = [
            {"answerCandidate": row["claim"][:300], "facts": facts(row["evidence"])} for row in rows
        ]
    else:
        sample = (REPO / "events" / "batch_input.jsonl").read_text().splitlines()
        bodies = [json.loads(line) for line in sample if '"id"' in line]
    lines = []
    for index, body in zip(range(count), itertools.cycle(bodies), strict=False):
        row = {**body, "id": f"line-{index}"} if index % 50 else {"answerCandidate": "no id"}
        lines.append(json.dumps(row))
    return ("\n".join(lines) + "\n").encode()


def facts(sentences: list[str]) -> list[dict[str, str]]:
    """The evidence's first sentences, as facts of a line of about LINE_BYTES bytes."""
    chosen: list[dict[str, str]] = []
    size = 0
    for sentence in sentences:
        if size + len(sentence) > LINE_BYTES - 350:
            break
        chosen.append({"factText": sentence})
        size += len(sentence) + 16
    return chosen or [{"factText": sentences[0][:300]}]


@dataclass
class Aws:
    endpoint: str
    s3: Any
    sqs: Any
    dynamodb: Any
    input_bucket: str
    output_bucket: str
    queue_url: str
    assemble_queue_url: str
    dead_letter_url: str
    table: str

    @classmethod
    def fresh(cls, endpoint: str) -> Aws:
        """Buckets, queues (with the template's redrive) and the batch table of one run."""
        suffix = uuid.uuid4().hex[:8]
        s3, sqs, dynamodb = (
            boto3.client(name, endpoint_url=endpoint) for name in ("s3", "sqs", "dynamodb")
        )
        dead = sqs.create_queue(QueueName=f"bench-dlq-{suffix}")["QueueUrl"]
        dead_arn = sqs.get_queue_attributes(QueueUrl=dead, AttributeNames=["QueueArn"])[
            "Attributes"
        ]["QueueArn"]
        redrive = json.dumps({"deadLetterTargetArn": dead_arn, "maxReceiveCount": RECEIVES})
        queues = [
            sqs.create_queue(
                QueueName=f"bench-{name}-{suffix}",
                Attributes={"VisibilityTimeout": str(visibility), "RedrivePolicy": redrive},
            )["QueueUrl"]
            for name, visibility in (("lines", 360), ("assemble", 5400))
        ]
        aws = cls(
            endpoint,
            s3,
            sqs,
            dynamodb,
            f"bench-in-{suffix}",
            f"bench-out-{suffix}",
            queues[0],
            queues[1],
            dead,
            f"bench-batch-{suffix}",
        )
        s3.create_bucket(Bucket=aws.input_bucket)
        s3.create_bucket(Bucket=aws.output_bucket)
        dynamodb.create_table(
            TableName=aws.table,
            BillingMode="PAY_PER_REQUEST",
            AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
            KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
        )
        return aws

    def overrides(self) -> dict[str, str]:
        return {
            "AWS_ENDPOINT_URL": self.endpoint,
            "AWS_ACCESS_KEY_ID": "testing",
            "AWS_SECRET_ACCESS_KEY": "testing",
            "GROUNDWORK_BATCH_QUEUE_URL": self.queue_url,
            "GROUNDWORK_BATCH_ASSEMBLE_QUEUE_URL": self.assemble_queue_url,
            "GROUNDWORK_BATCH_TABLE": self.table,
            "GROUNDWORK_BATCH_OUTPUT_BUCKET": self.output_bucket,
            "GROUNDWORK_DATA_DIR": tempfile.mkdtemp(prefix="bench-batch-"),
        }

    def waiting(self, queue_url: str) -> int:
        attributes = self.sqs.get_queue_attributes(
            QueueUrl=queue_url,
            AttributeNames=["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"],
        )["Attributes"]
        return sum(int(value) for value in attributes.values())


def invoke(environment: Environment, event: dict[str, Any]) -> Any:
    response = httpx.post(
        environment.url + INVOKE_PATH,
        json=event,
        timeout=environment.function.timeout + 30,
    )
    if response.headers.get("x-amz-function-error"):
        raise RuntimeError(f"{environment.function.name} failed: {response.text[:2000]}")
    return response.json()


def peak_memory_mb(environment: Environment) -> float:
    """``VmHWM`` of the environment's runtime: the Python process the emulator started (in a
    process group of its own, so found by its parent)."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parents[int(entry.name)] = int(
                    (entry / "stat").read_text().rsplit(")", 1)[1].split()[1]
                )
            except (OSError, IndexError, ValueError):
                continue
    family, grown = {environment.process.pid}, True
    while grown:
        grown = False
        for pid, parent in parents.items():
            if parent in family and pid not in family:
                family.add(pid)
                grown = True
    peak = 0
    for pid in family:
        try:
            if "python" not in Path(f"/proc/{pid}/comm").read_text():
                continue
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            continue
        for line in status.splitlines():
            if line.startswith("VmHWM:"):
                peak = max(peak, int(line.split()[1]))
    if not peak:
        raise RuntimeError(f"no runtime process for {environment.function.name}")
    return peak / 1024


@dataclass
class Poller:
    """Lambda's SQS event source for one function environment."""

    aws: Aws
    queue_url: str
    environment: Environment
    batch_size: int
    receives: Counter[str] = field(default_factory=Counter)
    calls: int = 0
    busy_s: float = 0.0

    def poll_once(self) -> int:
        messages = self.aws.sqs.receive_message(
            QueueUrl=self.queue_url,
            MaxNumberOfMessages=self.batch_size,
            WaitTimeSeconds=1,
            AttributeNames=["ApproximateReceiveCount"],
        ).get("Messages", [])
        if not messages:
            return 0
        for message in messages:
            self.receives[message["MessageId"]] += 1
        records = [
            {
                "messageId": m["MessageId"],
                "receiptHandle": m["ReceiptHandle"],
                "body": m["Body"],
                "attributes": {
                    "ApproximateReceiveCount": m["Attributes"]["ApproximateReceiveCount"]
                },
                "messageAttributes": {},
                "md5OfBody": m["MD5OfBody"],
                "eventSource": "aws:sqs",
                "eventSourceARN": "arn:aws:sqs:us-east-1:123456789012:bench",
                "awsRegion": "us-east-1",
            }
            for m in messages
        ]
        started = time.perf_counter()
        result = invoke(self.environment, {"Records": records})
        self.busy_s += time.perf_counter() - started
        self.calls += 1
        failed = {item["itemIdentifier"] for item in result.get("batchItemFailures", [])}
        done = [m for m in messages if m["MessageId"] not in failed]
        if done:
            self.aws.sqs.delete_message_batch(
                QueueUrl=self.queue_url,
                Entries=[
                    {"Id": str(n), "ReceiptHandle": m["ReceiptHandle"]} for n, m in enumerate(done)
                ],
            )
        return len(messages)


@dataclass
class Run:
    lines: int
    workers: int
    input_mb: float
    enqueue_s: float
    enqueue_peak_mb: float
    work_s: float  # from the enqueue's start to the last line's result
    worker_busy_s: float
    assemble_s: float
    assemble_calls: int
    redelivered: int
    dead_lettered: int
    summary: dict[str, Any]

    @property
    def lines_per_s(self) -> float:
        return self.lines / (self.work_s + self.assemble_s)


def run(endpoint: str, lines: int, workers: int) -> Run:
    """The batch end to end; ``workers`` 0: the enqueue function alone (its time and memory)."""
    aws = Aws.fresh(endpoint)
    data = requests(lines)
    key = "bench/input.jsonl"
    aws.s3.put_object(Bucket=aws.input_bucket, Key=key, Body=data)
    build, tools_dir = default_build_dir(), default_tools_dir()
    functions = load(build)
    tools = emulator.Tools(tools_dir)
    workdir = Path(tempfile.mkdtemp(prefix="bench-", dir=tools_dir))
    overrides = aws.overrides()
    started_envs = []

    def start(name: str) -> Environment:
        environment = emulator.start(functions[name], tools, workdir, overrides)
        started_envs.append(environment)
        return environment

    try:
        enqueue = start("BatchEnqueueFunction")
        pollers = [
            Poller(aws, aws.queue_url, start("BatchWorkerFunction"), batch_size=10)
            for _ in range(workers)
        ]
        assembler = Poller(aws, aws.assemble_queue_url, start("BatchAssembleFunction"), 1)
        event = json.loads((REPO / "events" / "s3_object_created.json").read_text())
        event["Records"][0]["s3"]["bucket"]["name"] = aws.input_bucket
        event["Records"][0]["s3"]["object"]["key"] = key
        enqueued = threading.Event()
        timings: dict[str, float] = {}

        def enqueue_all() -> None:
            begun = time.perf_counter()
            invoke(enqueue, event)
            timings["enqueue"] = time.perf_counter() - begun
            enqueued.set()

        def work(poller: Poller) -> None:
            while True:
                if poller.poll_once() == 0 and enqueued.is_set() and not aws.waiting(aws.queue_url):
                    return

        started = time.perf_counter()
        threads = [threading.Thread(target=enqueue_all)]
        if not workers:
            enqueue_all()
            return Run(
                lines=lines,
                workers=0,
                input_mb=len(data) / 1e6,
                enqueue_s=timings["enqueue"],
                enqueue_peak_mb=peak_memory_mb(enqueue),
                work_s=0.0,
                worker_busy_s=0.0,
                assemble_s=0.0,
                assemble_calls=0,
                redelivered=0,
                dead_lettered=aws.waiting(aws.dead_letter_url),
                summary={},
            )
        threads += [threading.Thread(target=work, args=(p,)) for p in pollers]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        work_s = time.perf_counter() - started
        peak = peak_memory_mb(enqueue)
        assembling = time.perf_counter()
        while assembler.poll_once() or aws.waiting(aws.assemble_queue_url):
            pass
        assemble_s = time.perf_counter() - assembling
        summary = json.loads(
            aws.s3.get_object(Bucket=aws.output_bucket, Key=f"results/{key}/summary.json")[
                "Body"
            ].read()
        )
        receives = sum((p.receives for p in pollers), Counter())
        return Run(
            lines=lines,
            workers=workers,
            input_mb=len(data) / 1e6,
            enqueue_s=timings["enqueue"],
            enqueue_peak_mb=peak,
            work_s=work_s,
            worker_busy_s=sum(p.busy_s for p in pollers),
            assemble_s=assemble_s,
            assemble_calls=assembler.calls,
            redelivered=sum(1 for count in receives.values() if count > 1),
            dead_lettered=aws.waiting(aws.dead_letter_url),
            summary=summary,
        )
    finally:
        for environment in started_envs:
            environment.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument(
        "--workers", type=int, default=2, help="worker environments; 0: the enqueue alone"
    )
    args = parser.parse_args()
    endpoint = os.environ.get("GROUNDWORK_MOTO_URL")
    if not endpoint:
        raise SystemExit('GROUNDWORK_MOTO_URL is not set: eval "$(scripts/services.sh up moto)"')
    os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")
    os.environ.setdefault("AWS_ACCESS_KEY_ID", "testing")
    os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "testing")
    runs = []
    for lines in args.lines:
        print(f"running {lines:,} lines with {args.workers} workers...", flush=True)
        runs.append(run(endpoint, lines, args.workers))
    print()
    print("| lines | input MB | enqueue s | enqueue lines/s | enqueue peak MB (VmHWM) |")
    print("|---:|---:|---:|---:|---:|")
    for r in runs:
        print(
            f"| {r.lines:,} | {r.input_mb:.1f} | {r.enqueue_s:.1f} | {r.lines / r.enqueue_s:,.0f} "
            f"| {r.enqueue_peak_mb:.0f} |"
        )
    whole = [r for r in runs if r.workers]
    if not whole:
        return
    print()
    print(
        "| lines | workers | lines done s | lines/s per worker | assembly s (calls) | "
        "lines/s overall | received twice | dead-lettered | summary total / failed |"
    )
    print("|" + "---:|" * 9)
    for r in whole:
        print(
            f"| {r.lines:,} | {r.workers} | {r.work_s:.1f} | {r.lines / r.worker_busy_s:.1f} "
            f"| {r.assemble_s:.1f} ({r.assemble_calls}) | {r.lines_per_s:.1f} | {r.redelivered} "
            f"| {r.dead_lettered} | {r.summary['total']:,} / {r.summary['failed']:,} |"
        )
    largest = max(whole, key=lambda r: r.lines)
    worker_rate = largest.lines / largest.worker_busy_s  # lines/s of one worker, busy
    enqueue_rate = largest.lines / largest.enqueue_s
    assemble_rate = largest.lines / largest.assemble_s
    print()
    print(f"A million lines, from the {largest.lines:,}-line run's rates:")
    print()
    print("| workers | enqueue s | lines done s | assembly s | total |")
    print("|---:|---:|---:|---:|---:|")
    for workers in (10, 100, 1000):
        enqueue_s = MILLION / enqueue_rate
        # The workers take lines as the enqueue sends them: the slower of the two sets the pace.
        done_s = max(enqueue_s, MILLION / (worker_rate * workers))
        assemble_s = MILLION / assemble_rate
        total = done_s + assemble_s
        print(
            f"| {workers} | {enqueue_s:,.0f} | {done_s:,.0f} | {assemble_s:,.0f} "
            f"| {total:,.0f} s ({total / 60:.0f} min) |"
        )


if __name__ == "__main__":
    main()
