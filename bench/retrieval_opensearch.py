"""OpenSearch against the embedded index on the same data: quality and latency, fast and precise.

The Baltimore Catechism as in ``bench/retrieval_quality.py``: its 1,398 answers are the
passages, its questions the queries, each question's own answer the gold. Both indexes get the
same vectors of the configured embedder (each text is embedded once and remembered: the
sentences' too, which both indexes store), so the latency columns are the
index's own work plus the client's; a real ``precise`` query adds one question embedding to
either (printed on its own line).

Needs a node: ``eval "$(scripts/services.sh up)"`` (its exports name the node and the k-NN
engine: Lucene there, since Maven's k-NN has no faiss natives; production uses faiss).

Run: ``.venv/bin/python bench/retrieval_opensearch.py [--queries N]``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
import uuid
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from bench.fit_answerability import Memo
from groundwork.domain.cards import Card
from groundwork.embeddings.factory import get_embedder
from groundwork.retrieval.base import Quality, Retriever, SearchFilter
from groundwork.retrieval.embedded import EmbeddedIndex, passage_text
from groundwork.retrieval.opensearch import OpenSearchIndex, connect

CATECHISM = (
    Path(__file__).resolve().parents[2]
    / "shared/data/corpora/baltimore-catechism/catechism.qa.jsonl"
)
QUALITIES: tuple[Quality, ...] = ("fast", "precise")


def ndcg_at_10(ranked: Sequence[str], gold: str) -> float:
    return next((1 / np.log2(i + 2) for i, cid in enumerate(ranked[:10]) if cid == gold), 0.0)


def measure(index: Retriever, queries: list[tuple[str, str]], quality: Quality) -> list[float]:
    where = SearchFilter(collections=["catechism"])
    ndcg = r1 = r10 = 0.0
    times: list[float] = []
    for question, gold in queries:
        started = time.perf_counter()
        ranked = [hit.card.id for hit in index.search(question, where, 10, quality=quality)]
        times.append((time.perf_counter() - started) * 1000)
        ndcg += ndcg_at_10(ranked, gold)
        r1 += gold in ranked[:1]
        r10 += gold in ranked
    n = len(queries)
    p95 = statistics.quantiles(times, n=20)[18]
    return [ndcg / n, r1 / n, r10 / n, statistics.median(times), p95]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--queries", type=int, default=None, help="the first N questions only")
    args = parser.parse_args()
    url = os.environ.get("GROUNDWORK_OPENSEARCH_URL")
    if not url:
        raise SystemExit('GROUNDWORK_OPENSEARCH_URL is not set: eval "$(scripts/services.sh up)"')
    engine = os.environ.get("GROUNDWORK_OPENSEARCH_KNN_ENGINE", "faiss")

    rows = [json.loads(line) for line in CATECHISM.read_text().splitlines() if line.strip()]
    cards = [
        Card(id=f"q{r['q']}", collection="catechism", source_id="catechism", text=r["answer"],
             heading=r["heading"], heading_path=[r["heading"]], reference=str(r["q"]),
             title="Baltimore Catechism No. 3", url=f"catechism#{r['q']}")
        for r in rows
    ]  # fmt: skip
    queries = [(r["question"], f"q{r['q']}") for r in rows][: args.queries]
    embedder = Memo(get_embedder(), None)
    embedder.embed([passage_text(card) for card in cards], role="passage")  # once, for both
    started = time.perf_counter()
    embedder.embed([q for q, _ in queries], role="query")
    per_query = (time.perf_counter() - started) * 1000 / len(queries)

    client = connect(url, region=None, service=None)
    name = f"groundwork-bench-{uuid.uuid4().hex[:8]}"
    with tempfile.TemporaryDirectory() as tmp:
        indexes: dict[str, Retriever] = {
            "embedded": EmbeddedIndex(Path(tmp) / "index.sqlite3", embedder),
            f"opensearch ({engine})": OpenSearchIndex(
                client, embedder, index=name, pipeline=name, engine=engine,  # type: ignore[arg-type]
                replicas=0, refresh=True,
            ),
        }  # fmt: skip
        try:
            ingest: dict[str, float] = {}
            for label, index in indexes.items():
                started = time.perf_counter()
                index.upsert(cards)
                ingest[label] = time.perf_counter() - started
            print(f"\nBaltimore Catechism: {len(cards)} passages, {len(queries)} queries, k=10")
            print(f"(question embedding, the same for both, not timed below: {per_query:.1f} ms)")
            print("| index               | quality | nDCG@10 | R@1   | R@10  | p50 ms | p95 ms |")
            print("|---------------------|---------|---------|-------|-------|--------|--------|")
            for label, index in indexes.items():
                for quality in QUALITIES:
                    ndcg, r1, r10, p50, p95 = measure(index, queries, quality)
                    print(f"| {label:<19} | {quality:<7} | {ndcg:.3f}   | {r1:.3f} | {r10:.3f} "
                          f"| {p50:6.1f} | {p95:6.1f} |")  # fmt: skip
            print(
                "ingest, vectors already computed: "
                + ", ".join(f"{k} {v:.1f} s" for k, v in ingest.items())
            )
            print(f"load average when done: {os.getloadavg()[0]:.1f}")
        finally:
            client.indices.delete(index=name, params={"ignore_unavailable": "true"})
            client.transport.perform_request(
                "DELETE", f"/_search/pipeline/{name}", params={"ignore": 404}
            )


if __name__ == "__main__":
    main()
