"""Grounding accuracy on WiCE dev: is each Wikipedia claim supported by its cited web page?

Each claim is an answer candidate; its evidence sentences, grouped in order into at most 200
facts of at most 10,000 characters, are the facts. "supported" is the positive label;
"partially_supported" and "not_supported" are negative. Prints balanced accuracy at the default
citation threshold, AUROC of supportScore, and precision/recall of the cited sentences against
the annotated supporting sentences, beside published WiCE test figures.

    .venv/bin/python bench/grounding_accuracy.py [--data PATH] [--threshold 0.6]
"""

from __future__ import annotations

import argparse
import html
import json
import time
from pathlib import Path
from typing import Any

import numpy as np

from groundwork.grounding.factory import get_verifier
from groundwork.grounding.model import (
    DEFAULT_CITATION_THRESHOLD,
    MAX_FACT_CHARS,
    MAX_FACTS,
    CheckRequest,
    Fact,
)
from groundwork.grounding.service import check

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--threshold", type=float, default=DEFAULT_CITATION_THRESHOLD)
    args = parser.parse_args()
    rows = [json.loads(line) for line in args.data.read_text().splitlines() if line.strip()]
    verifier = get_verifier()
    scores, labels = [], []
    # Cited-sentence counts (hits, cited, gold) over every claim and over the supported ones.
    counts = {"all claims": [0, 0, 0], "supported claims": [0, 0, 0]}
    started = time.perf_counter()
    for row in rows:
        facts, layout = group_facts(row["evidence"])
        request = CheckRequest(row["claim"], facts, citation_threshold=args.threshold)
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
    elapsed = time.perf_counter() - started
    s, y = np.asarray(scores), np.asarray(labels)
    predicted = s >= args.threshold
    tpr = (predicted & y).sum() / y.sum()
    tnr = (~predicted & ~y).sum() / (~y).sum()
    balanced = 100 * (tpr + tnr) / 2
    print(f"WiCE dev: {len(rows)} claims ({int(y.sum())} supported), {elapsed:.1f} s in all\n")
    print(f"| system | balanced accuracy at {args.threshold} | AUROC |")
    print("|---|---|---|")
    print(f"| groundwork heuristic v1 (WiCE dev) | {balanced:.1f} | {100 * auroc(s, y):.1f} |")
    for name, figure in PUBLISHED:
        print(f"| {name} | {figure:.1f} | |")
    print()
    print("| cited sentences vs supporting_sentences | precision | recall |")
    print("|---|---|---|")
    for name, (hits, cited_total, gold_total) in counts.items():
        precision = 100 * hits / max(cited_total, 1)
        print(f"| {name} | {precision:.1f} | {100 * hits / max(gold_total, 1):.1f} |")
    print(f"\ntrue positive rate {100 * tpr:.1f}, true negative rate {100 * tnr:.1f}")


if __name__ == "__main__":
    main()
