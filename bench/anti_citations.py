"""Can the heuristic verifier tell a contradicted claim from an unsupported one?

Check grounding's anti-citations (Vertex AI's experimental ``enableAntiCitations``: claims'
``antiCitationIndices`` and a ``contradictionScore``) would cite the facts that contradict a
claim. The heuristic verifier has three signals that could say so, all lexical: the claim's
topic is covered by its best sentence window but a **number** differs (the window states
another one), or the **negation** differs (the same test as its negation penalty). This
measures that rule, at several topic-coverage thresholds, on data it was never tuned on:

- MNLI and SNLI dev pairs (``../shared/data/train``): contradiction against neutral, the exact
  question; and how often an entailed pair is flagged;
- WiCE dev claims (``../shared/data/eval/wice_claim_dev.jsonl``): WiCE has no contradiction
  label, so a flag on a *supported* claim is certainly wrong, and the flags on partially and
  not supported claims are counted only;
- hand-written cases (``bench/data/anti_citations.jsonl``): contradicted, unsupported and
  supported claims about the same facts.

Run: ``.venv/bin/python -m bench.anti_citations [--pairs 2000]`` (about a minute).
"""

from __future__ import annotations

import argparse
import json
import random
from dataclasses import dataclass
from pathlib import Path

from groundwork.grounding.base import Passage
from groundwork.grounding.evidence import build_evidence
from groundwork.grounding.features import analyse
from groundwork.grounding.heuristic import HeuristicVerifier
from groundwork.grounding.model import Fact

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared" / "data"
THRESHOLDS = (0.6, 0.7, 0.8, 0.9)


@dataclass(frozen=True)
class Signal:
    topic: float  # weighted share of the claim's non-number stems its best window holds
    numbers: bool  # a number of the claim is missing and the window states another
    negation: bool  # the claim and the window differ in negation

    def contradicts(self, threshold: float) -> bool:
        return self.topic >= threshold and (self.numbers or self.negation)


def signal(verifier: HeuristicVerifier, claim: str, facts: list[str]) -> Signal:
    evidence = build_evidence([Fact(text) for text in facts])
    passages: list[Passage] = evidence.passages
    (support,) = verifier.verify([claim], passages)
    if not support.passages:
        return Signal(0.0, False, False)
    window = analyse(passages[support.passages[0][0]].text)
    # Every window the verifier chose: a number another of them states is not missing.
    chosen = frozenset().union(*(analyse(passages[i].text).stems for i, _ in support.passages))
    wanted = analyse(claim)
    plain = {s: w for s, w in wanted.weights.items() if s not in wanted.numbers}
    total = sum(plain.values())
    topic = sum(w for s, w in plain.items() if s in window.stems) / total if total else 0.0
    numbers = bool(wanted.numbers - chosen) and bool(window.numbers - wanted.stems)
    return Signal(topic, numbers, wanted.negated != window.negated)


def nli(name: str, pairs: int, seed: int) -> list[tuple[str, str, str]]:
    rows = [json.loads(line) for line in (SHARED / "train" / f"{name}.jsonl").open()]
    rows = [r for r in rows if r["split"].startswith("dev")]
    random.Random(seed).shuffle(rows)
    return [(r["hypothesis"], r["premise"], r["label"]) for r in rows[:pairs]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=2000, help="NLI pairs per set")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    verifier = HeuristicVerifier()

    print("| data | threshold | precision (contradiction vs neutral) | recall | "
          "flagged entailed | pairs |")  # fmt: skip
    print("|---|---:|---:|---:|---:|---:|")
    for name in ("mnli", "snli"):
        rows = nli(name, args.pairs, args.seed)
        signals = [(signal(verifier, h, [p]), label) for h, p, label in rows]
        for threshold in THRESHOLDS:
            flagged = [label for s, label in signals if s.contradicts(threshold)]
            contradictions = sum(label == "contradiction" for _, label in signals)
            true = flagged.count("contradiction")
            against = true + flagged.count("neutral")
            entailed = sum(label == "entailment" for _, label in signals)
            print(
                f"| {name} dev | {threshold} | {true / against if against else 0:.2f} "
                f"({true}/{against}) | {true / contradictions:.3f} | "
                f"{flagged.count('entailment') / entailed:.3f} | {len(rows)} |"
            )

    wice = [json.loads(line) for line in (SHARED / "eval" / "wice_claim_dev.jsonl").open()]
    print("\n| WiCE dev | threshold | supported flagged (wrong) | partially supported flagged | "
          "not supported flagged |")  # fmt: skip
    print("|---|---:|---:|---:|---:|")
    signals = [(signal(verifier, r["claim"], r["evidence"]), r["label"]) for r in wice]
    for threshold in THRESHOLDS:
        cells = []
        for label in ("supported", "partially_supported", "not_supported"):
            of = [s for s, lab in signals if lab == label]
            hits = sum(s.contradicts(threshold) for s in of)
            cells.append(f"{hits}/{len(of)}")
        print(f"| | {threshold} | {' | '.join(cells)} |")

    cases = [json.loads(line) for line in (REPO / "bench/data/anti_citations.jsonl").open()]
    print("\n| own cases | threshold | contradicted flagged | unsupported flagged | "
          "supported flagged |")  # fmt: skip
    print("|---|---:|---:|---:|---:|")
    signals = [(signal(verifier, c["claim"], c["facts"]), c["label"]) for c in cases]
    for threshold in THRESHOLDS:
        cells = []
        for label in ("contradicted", "unsupported", "supported"):
            of = [s for s, lab in signals if lab == label]
            cells.append(f"{sum(s.contradicts(threshold) for s in of)}/{len(of)}")
        print(f"| | {threshold} | {' | '.join(cells)} |")


if __name__ == "__main__":
    main()
