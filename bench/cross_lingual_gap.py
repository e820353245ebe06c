"""How much lower a question's cosine with its answer runs across languages than within one:
``answerability.CROSS_LINGUAL_SHIFT``.

On the Open Source Guides of ``bench.multilingual`` (the same articles in twelve languages, the
same 51 questions in each), for every question and language L: the best cosine of the
question's units with its gold section's units, asked in L over the English documents against
asked in English (and asked in English over L's documents against asked in L). The answerability
model was fitted on English questions over English documents, so a cross-lingual similarity is
raised by the median gap before it is read. The shift is the median over the fitting languages
(de, es, fr, it, pt); the others' medians show whether it holds beyond them.

    .venv/bin/python -m bench.cross_lingual_gap [--cache FILE.npz]
"""

from __future__ import annotations

import argparse
import statistics
from pathlib import Path

import numpy as np
from tqdm import tqdm

from bench.fit_answerability import Memo
from bench.multilingual import GUIDE, LANGUAGES, QUESTIONS, guide_cards, load_questions
from groundwork.answer.units import embedded
from groundwork.embeddings.factory import get_embedder

FITTING = ("de", "es", "fr", "it", "pt")


def best_cosines(memo: Memo, questions: list[str], sections: list[list[str]]) -> list[float]:
    """Each question's best cosine with a unit of its section."""
    asked = memo.embed(questions, role="query")
    out = []
    for vector, units in zip(asked, sections, strict=True):
        out.append(float(np.max(memo.embed(units, role="passage") @ vector)))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, default=None, help="keep the embeddings here")
    args = parser.parse_args()
    memo = Memo(get_embedder(), args.cache)
    rows = load_questions(QUESTIONS)
    gaps: dict[str, list[float]] = {}
    for language in tqdm(LANGUAGES, desc="languages"):
        for documents in ("en", language):
            cards, gold = guide_cards(GUIDE, documents)
            by_id = {card.id: card for card in cards}
            sections, kept = [], []
            for r in rows:
                ids = sorted(gold.get((r["article"], r["section"]), ()))
                units = [u for i in ids for u in embedded(by_id[i].text)]
                if units:
                    sections.append(units)
                    kept.append(r)
            same, across = (language, "en") if documents == language else ("en", language)
            within = best_cosines(memo, [r["questions"][same] for r in kept], sections)
            beyond = best_cosines(memo, [r["questions"][across] for r in kept], sections)
            gaps.setdefault(language, []).extend(w - b for w, b in zip(within, beyond, strict=True))
    memo.save()
    print("| language | pairs | median gap | mean gap |")
    print("|---|---|---|---|")
    for language, values in gaps.items():
        fitted = " (fitting)" if language in FITTING else ""
        print(f"| {language}{fitted} | {len(values)} | {statistics.median(values):.3f} | "
              f"{statistics.fmean(values):.3f} |")  # fmt: skip
    shift = statistics.median([g for lang in FITTING for g in gaps[lang]])
    others = statistics.median([g for lang in gaps if lang not in FITTING for g in gaps[lang]])
    print(f"\nCROSS_LINGUAL_SHIFT = {shift:.3f}  (the other languages' median: {others:.3f})")


if __name__ == "__main__":
    main()
