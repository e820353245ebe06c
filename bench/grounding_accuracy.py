"""Grounding accuracy on WiCE dev: is each Wikipedia claim supported by its cited web page?

Each claim is an answer candidate; its evidence sentences, grouped in order into at most 200
facts of at most 10,000 characters, are the facts. "supported" is the positive label;
"partially_supported" and "not_supported" are negative. Prints, per verifier (version 1's
heuristic, the trained cross-encoder alone, the two combined), balanced accuracy of supportScore
at 0.5 and 0.6, its AUROC, and precision/recall of the cited sentences against the annotated
supporting sentences, beside published WiCE test figures. Nothing here was trained on WiCE.

With ``--gold-evidence`` each claim is checked against only its annotated supporting sentences,
which separates how well a verifier judges evidence from how well it finds it.

    .venv/bin/python bench/grounding_accuracy.py [--data PATH] [--threshold 0.6]
        [--verifiers heuristic,model,combined] [--gold-evidence]
"""

from __future__ import annotations

import argparse
import html
import json
import time
from pathlib import Path
from typing import Any

import numpy as np

from groundwork.grounding.base import Verifier
from groundwork.grounding.factory import get_verifier
from groundwork.grounding.model import (
    DEFAULT_CITATION_THRESHOLD,
    MAX_FACT_CHARS,
    MAX_FACTS,
    CheckRequest,
    Fact,
)
from groundwork.grounding.service import check
from groundwork.settings import Settings

#: The trained verifier's weights, kept in the repository, not shipped (docs/grounding.md).
VERIFIER_WEIGHTS = Path(__file__).resolve().parents[1] / "models" / "verifier"
DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "eval" / "wice_claim_dev.jsonl"
PUBLISHED = (
    ("MiniCheck-Flan-T5-L (WiCE test)", 72.2),
    ("GPT-4o (WiCE test)", 78.5),
    ("Bespoke-MiniCheck-7B (WiCE test)", 83.0),
)
_JOIN = "\n\n"  # a blank line keeps each evidence sentence in its own block


def group_facts(evidence: list[str]) -> tuple[list[Fact], list[list[tuple[int, int, int]]]]:
    """Facts, and per fact the (sentence index, start, end) of each sentence in its decoded text."""
    facts: list[Fact] = []
    layout: list[list[tuple[int, int, int]]] = []
    current: list[tuple[int, str]] = []

    def flush() -> None:
        if current and len(facts) < MAX_FACTS:
            text = _JOIN.join(s for _, s in current)
            facts.append(Fact(text))
            spans, offset = [], 0
            for index, sentence in current:
                decoded = html.unescape(sentence)
                spans.append((index, offset, offset + len(decoded)))
                offset += len(decoded) + len(_JOIN)
            layout.append(spans)
        current.clear()

    size = 0
    for index, sentence in enumerate(evidence):
        sentence = sentence[:MAX_FACT_CHARS]
        if current and size + len(_JOIN) + len(sentence) > MAX_FACT_CHARS:
            flush()
            size = 0
        size += (len(_JOIN) if current else 0) + len(sentence)
        current.append((index, sentence))
    flush()
    return facts, layout


def auroc(scores: np.ndarray[Any, Any], labels: np.ndarray[Any, Any]) -> float:
    order = np.argsort(scores, kind="mergesort")
    ranks = np.empty(len(scores))
    ranks[order] = np.arange(1, len(scores) + 1)
    for value in np.unique(scores):  # average ranks of ties
        tied = scores == value
        ranks[tied] = ranks[tied].mean()
    positives = labels.sum()
    negatives = len(labels) - positives
    return float((ranks[labels].sum() - positives * (positives + 1) / 2) / (positives * negatives))


def gold_only(row: dict[str, Any]) -> dict[str, Any]:
    """The row with only its annotated supporting sentences as evidence, in their order."""
    gold = sorted({i for group in row["supporting_sentences"] for i in group})
    return row | {
        "evidence": [row["evidence"][i] for i in gold],
        "supporting_sentences": [list(range(len(gold)))],
    }


def evaluate(verifier: Verifier, rows: list[dict[str, Any]], threshold: float) -> dict[str, Any]:
    """Support scores and labels per claim, and cited-sentence (hits, cited, gold) counts."""
    scores, labels = [], []
    # Cited-sentence counts (hits, cited, gold) over every claim and over the supported ones.
    counts = {"all claims": [0, 0, 0], "supported claims": [0, 0, 0]}
    started = time.perf_counter()
    for row in rows:
        facts, layout = group_facts(row["evidence"])
        request = CheckRequest(row["claim"], facts, citation_threshold=threshold)
        response = check(request, verifier)
        scores.append(response.support_score)
        labels.append(row["label"] == "supported")
        cited: set[int] = set()
        for chunk in response.cited_chunks:
            text = html.unescape(facts[chunk.source].text)
            start = text.find(chunk.chunk_text)
            end = start + len(chunk.chunk_text)
            cited |= {i for i, s, e in layout[chunk.source] if s < end and start < e}
        gold = {i for group in row["supporting_sentences"] for i in group}
        for name in counts if row["label"] == "supported" else ["all claims"]:
            if gold:
                counts[name][0] += len(cited & gold)
                counts[name][1] += len(cited)
                counts[name][2] += len(gold)
    return {
        "scores": np.asarray(scores),
        "labels": np.asarray(labels),
        "counts": counts,
        "seconds": time.perf_counter() - started,
    }


def balanced_accuracy(
    scores: np.ndarray[Any, Any], labels: np.ndarray[Any, Any], at: float
) -> float:
    predicted = scores >= at
    tpr = (predicted & labels).sum() / labels.sum()
    tnr = (~predicted & ~labels).sum() / (~labels).sum()
    return float(100 * (tpr + tnr) / 2)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument(
        "--threshold",
        type=float,
        default=DEFAULT_CITATION_THRESHOLD,
        help="the requests' citationThreshold, for the cited sentences",
    )
    parser.add_argument(
        "--verifiers",
        default="heuristic,model,combined",
        help="comma-separated: heuristic (version 1), model (the cross-encoder alone), combined",
    )
    parser.add_argument(
        "--gold-evidence",
        action="store_true",
        help="check each claim against only its annotated supporting sentences",
    )
    args = parser.parse_args()
    rows = [json.loads(line) for line in args.data.read_text().splitlines() if line.strip()]
    if args.gold_evidence:
        rows = [gold_only(row) for row in rows]
    results = {}
    for name in args.verifiers.split(","):
        settings = Settings(verifier=name, bootstrap_docs=False, verifier_weights=VERIFIER_WEIGHTS)
        results[name] = evaluate(get_verifier(settings), rows, args.threshold)
    labels = next(iter(results.values()))["labels"]
    evidence = "annotated supporting sentences only" if args.gold_evidence else "all evidence"
    print(f"WiCE dev: {len(rows)} claims ({int(labels.sum())} supported), {evidence}\n")
    print("| system | balanced accuracy at 0.5 | at 0.6 | AUROC | seconds |")
    print("|---|---|---|---|---|")
    for name, result in results.items():
        s, y = result["scores"], result["labels"]
        print(
            f"| groundwork {name} (WiCE dev) | {balanced_accuracy(s, y, 0.5):.1f} | "
            f"{balanced_accuracy(s, y, 0.6):.1f} | {100 * auroc(s, y):.1f} | "
            f"{result['seconds']:.0f} |"
        )
    for name, figure in PUBLISHED:
        print(f"| {name} | {figure:.1f} | | | |")
    print()
    print(
        f"| cited sentences vs supporting_sentences, citationThreshold {args.threshold} "
        "| precision | recall |"
    )
    print("|---|---|---|")
    for name, result in results.items():
        for subset, (hits, cited_total, gold_total) in result["counts"].items():
            precision = 100 * hits / max(cited_total, 1)
            recall = 100 * hits / max(gold_total, 1)
            print(f"| {name}, {subset} | {precision:.1f} | {recall:.1f} |")


if __name__ == "__main__":
    main()
