"""Retrieval quality: keyword, vector, hybrid, both operating points and ``precise`` at its
former weights (``former``), on two sets.

- Baltimore Catechism: the 1,398 answers are the passages (each with its lesson heading),
  the questions are the queries, and the gold passage is the question's own answer.
- WiCE dev as sentence retrieval: each claim's evidence document is cut into its sentences,
  the claim is the query, its supporting sentences are the gold; the search is filtered to the
  claim's own document (a ``source_ids`` filter, applied inside the search).

Run: ``.venv/bin/python bench/retrieval_quality.py [--sets catechism wice] [--wice-claims N]``.
Embedding dominates the time: the Catechism's 1,398 answers and each query once per method
that needs it, and about 120 sentences per WiCE claim (300 claims: 36,000 sentences).
"""

from __future__ import annotations

import argparse
import json
import math
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from groundwork.domain.cards import Card
from groundwork.embeddings.base import Embedder
from groundwork.embeddings.factory import bare_embedder
from groundwork.embeddings.memory import RememberingEmbedder
from groundwork.retrieval.base import SearchFilter
from groundwork.retrieval.embedded import PRECISE_POOL, EmbeddedIndex, fuse
from groundwork.retrieval.rerank import COVERAGE_WEIGHT

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
CATECHISM = SHARED / "corpora" / "baltimore-catechism" / "catechism.qa.jsonl"
WICE = SHARED / "eval" / "wice_claim_dev.jsonl"
METHODS = ("keyword", "vector", "hybrid", "fast", "precise", "former")
#: ``former``: ``precise`` as it was chosen with MiniLM, before the keyword weight was lowered
#: and the sentence's nearness joined the rerank (docs/retrieval.md, operating points).
FORMER_KEYWORD_WEIGHT = 0.5

Query = tuple[str, SearchFilter, set[str]]


def ndcg_at_10(ranked: Sequence[str], gold: set[str]) -> float:
    dcg = sum(1 / math.log2(i + 2) for i, cid in enumerate(ranked[:10]) if cid in gold)
    ideal = sum(1 / math.log2(i + 2) for i in range(min(len(gold), 10)))
    return dcg / ideal


def recall_at(ranked: Sequence[str], gold: set[str], k: int) -> float:
    return len(gold & set(ranked[:k])) / len(gold)


def precise_at(
    index: EmbeddedIndex,
    embedder: Embedder,
    where: SearchFilter,
    keyword_weight: float,
    sentence_weight: float,
    question: str,
    *,
    coverage_weight: float = COVERAGE_WEIGHT,
) -> list[str]:
    """The first ten card ids of the embedded index's precise search of ``question`` with these
    weights (``retrieval.base.KEYWORD_WEIGHT``, ``retrieval.rerank.SENTENCE_WEIGHT``)."""
    keyword = index.keyword_ranking(question, where, PRECISE_POOL)
    asked = embedder.embed([question], role="query")[0]
    hits = index.reranked(
        question, keyword, asked, where, 10,
        keyword_weight=keyword_weight, sentence_weight=sentence_weight,
        coverage_weight=coverage_weight,
    )  # fmt: skip
    return [hit.card.id for hit in hits]


def rankers(index: EmbeddedIndex) -> dict[str, Callable[[str, SearchFilter], list[str]]]:
    embed = index._embedder.embed  # the bench reaches in to score each side on its own

    def ids(rowids: Sequence[tuple[int, float]]) -> list[str]:
        return [hit.card.id for hit in index.hits(rowids)]

    def keyword(q: str, where: SearchFilter) -> list[str]:
        return ids(index.keyword_ranking(q, where, 10))

    def vector(q: str, where: SearchFilter) -> list[str]:
        return ids(index.vector_ranking(embed([q], role="query")[0], where, 10))

    def hybrid(q: str, where: SearchFilter) -> list[str]:
        sides = [
            index.keyword_ranking(q, where, PRECISE_POOL),
            index.vector_ranking(embed([q], role="query")[0], where, PRECISE_POOL),
        ]
        return ids(fuse(*sides)[:10])

    def fast(q: str, where: SearchFilter) -> list[str]:
        return [hit.card.id for hit in index.search(q, where, 10, quality="fast")]

    def precise(q: str, where: SearchFilter) -> list[str]:
        return [hit.card.id for hit in index.search(q, where, 10, quality="precise")]

    def former(q: str, where: SearchFilter) -> list[str]:
        return precise_at(index, index._embedder, where, FORMER_KEYWORD_WEIGHT, 0.0, q)

    return {"keyword": keyword, "vector": vector, "hybrid": hybrid, "fast": fast,
            "precise": precise, "former": former}  # fmt: skip


def evaluate(name: str, index: EmbeddedIndex, queries: list[Query]) -> None:
    print(f"\n{name}: {index.count()} passages, {len(queries)} queries")
    print(f"| {'method':<8} | nDCG@10 | R@1   | R@5   | R@10  | ms/query |")
    print("|----------|---------|-------|-------|-------|----------|")
    for method, rank in rankers(index).items():
        totals = [0.0, 0.0, 0.0, 0.0]
        started = time.perf_counter()
        for query, where, gold in queries:
            ranked = rank(query, where)
            totals[0] += ndcg_at_10(ranked, gold)
            for i, k in enumerate((1, 5, 10), start=1):
                totals[i] += recall_at(ranked, gold, k)
        ms = (time.perf_counter() - started) * 1000 / len(queries)
        n = len(queries)
        print(f"| {method:<8} | {totals[0] / n:.3f}   | {totals[1] / n:.3f} | "
              f"{totals[2] / n:.3f} | {totals[3] / n:.3f} | {ms:8.1f} |")  # fmt: skip


def catechism(embedder: Embedder, root: Path) -> None:
    rows = [json.loads(line) for line in CATECHISM.read_text().splitlines() if line.strip()]
    index = EmbeddedIndex(root / "catechism.sqlite3", embedder)
    index.upsert([
        Card(id=f"q{r['q']}", collection="catechism", source_id="catechism", text=r["answer"],
             heading=r["heading"], heading_path=[r["heading"]], reference=str(r["q"]),
             title="Baltimore Catechism No. 3", url=f"catechism#{r['q']}")
        for r in rows
    ])  # fmt: skip
    where = SearchFilter(collections=["catechism"])
    evaluate("Baltimore Catechism", index, [(r["question"], where, {f"q{r['q']}"}) for r in rows])


def wice(embedder: Embedder, root: Path, limit: int | None) -> None:
    rows = [json.loads(line) for line in WICE.read_text().splitlines() if line.strip()]
    rows = [r for r in rows if any(r["supporting_sentences"])][:limit]
    index = EmbeddedIndex(root / "wice.sqlite3", embedder)
    queries: list[Query] = []
    for n, row in enumerate(rows):
        source = f"claim{n}"
        index.upsert([
            Card(id=f"{source}-{i}", collection="wice", source_id=source, text=sentence,
                 url=f"wice#{n}-{i}", position=i)
            for i, sentence in enumerate(row["evidence"])
        ])  # fmt: skip
        gold = {f"{source}-{i}" for group in row["supporting_sentences"] for i in group}
        queries.append((row["claim"], SearchFilter(source_ids=[source]), gold))
    evaluate("WiCE dev, sentence retrieval within the claim's document", index, queries)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--wice-claims", type=int, default=None, help="at most this many claims")
    parser.add_argument("--sets", nargs="*", choices=["catechism", "wice"],
                        default=["catechism", "wice"])  # fmt: skip
    parser.add_argument("--embeddings", choices=["e5", "minilm"], default="e5")
    args = parser.parse_args()
    embedder = RememberingEmbedder(bare_embedder(args.embeddings))
    with tempfile.TemporaryDirectory() as tmp:
        if "catechism" in args.sets:
            catechism(embedder, Path(tmp))
        if "wice" in args.sets:
            wice(embedder, Path(tmp), args.wice_claims)


if __name__ == "__main__":
    main()
