"""Retrieval speed of the embedded index at 10,000 and 100,000 synthetic passages.

Each synthetic passage is three random real sentences (Federalist Papers, Catechism, WiCE
evidence), so word frequencies are those of real text; the queries are real questions (WiCE
claims and Catechism questions). Prints ingest throughput (passages/s) and peak memory, and
query latency p50/p95 (wall clock; the load average when done is printed, since the machine
is shared) for ``quality=fast`` (BM25 only), for a fast query filtered to two
of four collections and three of ten tags, and for the index side of ``quality=precise``.

Embedding 100,000 passages would take far longer than the index work measured here, so the
synthetic passages get **random unit vectors** (the vector search costs the same for any
vectors); each model's own throughput is measured on a sample and printed on its own lines
(``--models``): the passage's vector alone, and with its sentences' vectors, which ingest now
computes too (retrieval.sentence_vectors); a real ``precise`` query adds one question
embedding to the figure shown.

Run: ``.venv/bin/python bench/retrieval_speed.py [--sizes 10000 100000]``; each size runs in
its own process so that its peak memory is its own.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt

from groundwork.domain.cards import Card
from groundwork.embeddings.base import Embedder, EmbeddingModel, Role
from groundwork.retrieval.base import SearchFilter
from groundwork.retrieval.embedded import PRECISE_POOL, EmbeddedIndex, fuse
from groundwork.retrieval.rerank import RERANK_DEPTH

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
CORPORA = DATA / "corpora"
WICE = DATA / "eval" / "wice_claim_dev.jsonl"
SENTENCES_PER_PASSAGE = 3
QUERIES = 300
BATCH = 1_000


class RandomEmbedder(Embedder):
    """Random unit vectors: the index's cost without the model's."""

    model = EmbeddingModel("random", 384)

    def __init__(self) -> None:
        self._rng = np.random.default_rng(7)

    def embed(self, texts: Sequence[str], *, role: Role = "passage") -> npt.NDArray[np.float32]:
        vectors = self._rng.standard_normal((len(texts), self.dimension)).astype(np.float32)
        return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def sentences() -> list[str]:
    texts = [
        (CORPORA / "federalist" / "federalist.txt").read_text(errors="replace"),
        (CORPORA / "baltimore-catechism" / "catechism.txt").read_text(errors="replace"),
    ]
    texts += [" ".join(json.loads(line)["evidence"]) for line in WICE.read_text().splitlines()]
    pool = re.split(r"(?<=[.?!])\s+", " ".join(" ".join(texts).split()))
    return [s for s in pool if 40 <= len(s) <= 400]


def questions() -> list[str]:
    claims = [json.loads(line)["claim"] for line in WICE.read_text().splitlines()]
    catechism = (CORPORA / "baltimore-catechism" / "catechism.qa.jsonl").read_text()
    return claims + [json.loads(line)["question"] for line in catechism.splitlines()]


def passage(rng: np.random.Generator, pool: list[str]) -> str:
    return " ".join(pool[j] for j in rng.integers(0, len(pool), SENTENCES_PER_PASSAGE))


def percentile(values: list[float], q: float) -> float:
    return float(np.percentile(np.array(values) * 1000, q))


def measure(size: int) -> dict[str, float]:
    rng = np.random.default_rng(size)
    pool = sentences()
    embedder = RandomEmbedder()
    with tempfile.TemporaryDirectory() as tmp:
        index = EmbeddedIndex(Path(tmp) / "index.sqlite3", embedder)
        started = time.perf_counter()
        for first in range(0, size, BATCH):
            index.upsert([
                Card(id=f"p{i}", collection=f"c{i % 4}", source_id=f"s{i // 50}",
                     text=passage(rng, pool), url=f"doc{i // 50}#{i}", tags=[f"t{i % 10}"])
                for i in range(first, min(first + BATCH, size))
            ])  # fmt: skip
        ingest = size / (time.perf_counter() - started)
        asked = questions()
        queries = [asked[j] for j in rng.choice(len(asked), QUERIES, replace=False)]
        everything = SearchFilter()
        filtered = SearchFilter(collections=["c1", "c2"], tags=["t1", "t2", "t5"])
        index.search("warm up", everything, 10)  # loads the vectors once
        names = ("fast", "fast_filtered", "precise")
        timings: dict[str, list[float]] = {n: [] for n in names}
        for query in queries:
            for name, where in (("fast", everything), ("fast_filtered", filtered)):
                started = time.perf_counter()
                index.search(query, where, 10, quality="fast")
                timings[name].append(time.perf_counter() - started)
            question = embedder.embed([query], role="query")[0]
            started = time.perf_counter()
            keyword = index.keyword_ranking(query, everything, PRECISE_POOL)
            vector = index.vector_ranking(question, everything, PRECISE_POOL)
            index.hits(fuse(keyword, vector)[:RERANK_DEPTH])
            timings["precise"].append(time.perf_counter() - started)
        disk = sum(f.stat().st_size for f in Path(tmp).iterdir())
    result = {"size": size, "ingest_per_s": ingest, "disk_mb": disk / 2**20,
              "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}  # fmt: skip
    for name, values in timings.items():
        result[f"{name}_p50"] = percentile(values, 50)
        result[f"{name}_p95"] = percentile(values, 95)
    return result


def model_throughput(kind: str, sample: int = 100) -> tuple[float, float]:
    """Passages per second: the passage's vector alone, and with its sentences' vectors."""
    from groundwork.embeddings.factory import bare_embedder
    from groundwork.retrieval.sentence_vectors import embed_sentences

    rng = np.random.default_rng(1)
    pool = sentences()
    cards = [
        Card(id=f"m{i}", collection="c", source_id="s", text=passage(rng, pool), url="u")
        for i in range(sample)
    ]
    embedder = bare_embedder(kind)  # without the memory: every text through the model
    embedder.embed([card.text for card in cards[:8]], role="passage")
    started = time.perf_counter()
    embedder.embed([card.text for card in cards], role="passage")
    alone = time.perf_counter() - started
    started = time.perf_counter()
    embed_sentences(cards, embedder)
    return sample / alone, sample / (alone + time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=[10_000, 100_000])
    parser.add_argument("--models", nargs="*", default=["e5", "minilm"])
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(measure(args.one)))
        return
    rows = []
    for size in args.sizes:
        out = subprocess.run(
            [sys.executable, __file__, "--one", str(size)], check=True, capture_output=True,
            text=True,
        ).stdout  # fmt: skip
        rows.append(json.loads(out.strip().splitlines()[-1]))
    print(f"load average when done: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs; "
          "latencies in ms, wall p50 / p95\n")  # fmt: skip
    print("| passages | ingest/s | peak RSS MB | disk MB | fast | fast, filtered"
          " | precise, index side |")  # fmt: skip
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        cells = [f"{r[f'{n}_p50']:.1f} / {r[f'{n}_p95']:.1f}"
                 for n in ("fast", "fast_filtered", "precise")]  # fmt: skip
        print(f"| {r['size']:,} | {r['ingest_per_s']:,.0f} | {r['peak_rss_mb']:,.0f} | "
              f"{r['disk_mb']:,.0f} | {' | '.join(cells)} |")  # fmt: skip
    for kind in args.models:
        alone, with_sentences = model_throughput(kind)
        print(f"\n{kind} embedding of {SENTENCES_PER_PASSAGE}-sentence passages: "
              f"{alone:.1f} passages/s for their vectors alone, {with_sentences:.1f} with their "
              "sentences' (ingest; the bound on its throughput)")  # fmt: skip


if __name__ == "__main__":
    main()
