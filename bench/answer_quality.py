"""Answer quality on the Baltimore Catechism: do the answer's citations point at the gold answer?

Every catechism answer is one card (its section heading as heading, its number as reference),
written straight into the configured index; every question is then asked with the extractive
composer and the embedded defaults. Prints, over the questions:

- retrieval recall: the gold card is among the passages the composer read;
- gold cited: a citation of the answer is the gold card (and: the first citation is);
- citation precision: the share of the generator's cited sentences whose cited passage the
  grounding engine supports, as written (raw) and after verification moved or removed markers;
- the mean support score of the answers;
- the answer's first sentence is a sentence of the gold answer; its median words; refusals;
- time to first token (the first delta of the answer stream), p50 and p95;
- refusals of off-corpus questions: SQuAD 2.0 dev questions (Wikipedia articles the catechism
  does not cover) asked of the catechism.

    .venv/bin/python -m bench.answer_quality [--limit N] [--quality fast|precise] [--data-dir DIR]
        [--off-corpus N]
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from groundwork.answer.citations import CitationStream
from groundwork.answer.service import AnswerOptions, AnswerService, Delta
from groundwork.answer.verification import GroundedVerifier
from groundwork.domain.cards import Card, Hit
from groundwork.generation.base import GenerationRequest, Turn
from groundwork.generation.extractive import NOT_FOUND, ExtractiveComposer
from groundwork.grounding.heuristic import HeuristicVerifier
from groundwork.retrieval.base import Quality, Retriever, SearchFilter
from groundwork.retrieval.factory import get_retriever
from groundwork.settings import Settings

DATA = (
    Path(__file__).resolve().parents[2]
    / "shared"
    / "data"
    / "corpora"
    / "baltimore-catechism"
    / "catechism.qa.jsonl"
)
OFF_CORPUS = DATA.parents[2] / "eval" / "squad2_dev_half.jsonl"
COLLECTION = "catechism"
SCOPE = SearchFilter(collections=[COLLECTION])
_MARKER = re.compile(r"\s*\[\d+\]")


def load(path: Path, limit: int | None) -> tuple[list[Card], list[dict[str, Any]]]:
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    cards = [
        Card(
            id=f"catechism-{row['q']}",
            collection=COLLECTION,
            source_id="baltimore-catechism",
            text=row["answer"],
            heading=row["heading"].rstrip(".").title(),
            reference=str(row["q"]),
            title="Baltimore Catechism No. 3",
            url=f"catechism.txt#q{row['q']}",
            position=row["q"],
        )
        for row in rows
    ]
    return cards, rows[:limit] if limit else rows


class Remembering(Retriever):
    """The configured index, remembering the passages of the last search it answered."""

    def __init__(self, inner: Retriever) -> None:
        self.inner = inner
        self.last: list[Card] = []

    def upsert(self, cards: Sequence[Card]) -> None:
        self.inner.upsert(cards)

    def delete_source(self, source_id: str) -> int:
        return self.inner.delete_source(source_id)

    def search(
        self, query: str, where: SearchFilter, k: int, *, quality: Quality = "precise"
    ) -> list[Hit]:
        hits = self.inner.search(query, where, k, quality=quality)
        self.last = [hit.card for hit in hits]
        return hits

    def count(self, collection: str | None = None) -> int:
        return self.inner.count(collection)


def build(settings: Settings, cards: list[Card]) -> float:
    """Index the cards (unless a reused data directory holds them already); seconds spent."""
    retriever = get_retriever(settings)
    started = time.perf_counter()
    if retriever.count(COLLECTION) != len(cards):
        for i in range(0, len(cards), 256):
            retriever.upsert(cards[i : i + 256])
    return time.perf_counter() - started


def raw_precision(question: str, passages: list[Card]) -> tuple[int, int]:
    """Cited sentences as the composer wrote them, and how many the verifier supports."""
    request = GenerationRequest(question=question, passages=passages, query=question)
    stream = CitationStream(passages, GroundedVerifier(HeuristicVerifier()))
    for delta in ExtractiveComposer().stream(request):
        stream.feed(delta)
    stream.close()
    return stream.cited_sentences, stream.supported_sentences


def final_precision(text: str, cited: list[Card]) -> tuple[int, int]:
    """Re-check the delivered answer: ``[m]`` names ``cited[m-1]``."""
    stream = CitationStream(cited, GroundedVerifier(HeuristicVerifier()))
    stream.feed(text)
    stream.close()
    return stream.cited_sentences, stream.supported_sentences


def off_corpus(limit: int) -> list[str]:
    """Answerable SQuAD 2.0 dev questions: about Wikipedia articles, not the catechism."""
    if not OFF_CORPUS.exists() or limit <= 0:
        return []
    rows = [json.loads(line) for line in OFF_CORPUS.read_text().splitlines() if line.strip()]
    return [r["question"] for r in rows if not r["is_impossible"]][::7][:limit]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--limit", type=int, default=None, help="ask only the first N questions")
    parser.add_argument("--quality", choices=["fast", "precise"], default="precise")
    parser.add_argument(
        "--off-corpus", type=int, default=200, help="SQuAD questions asked of the catechism"
    )
    parser.add_argument(
        "--data-dir", type=Path, default=None, help="keep the index here and reuse it next time"
    )
    args = parser.parse_args()

    cards, rows = load(args.data, args.limit)
    by_reference = {card.reference: card for card in cards}
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(data_dir=args.data_dir or Path(tmp), bootstrap_docs=False)
        index_s = build(settings, cards)
        retriever = Remembering(get_retriever(settings))
        service = AnswerService(retriever, ExtractiveComposer(), k=settings.retrieval_k)
        options = AnswerOptions(quality=args.quality)
        counts = dict.fromkeys(
            (
                "recall",
                "gold",
                "first",
                "answered",
                "raw_cited",
                "raw_ok",
                "cited",
                "ok",
                "lead",
                "refused",
                "off_refused",
            ),
            0,
        )
        scores: list[float] = []
        first_token: list[float] = []
        words: list[int] = []
        started = time.perf_counter()
        for row in rows:
            question, gold = row["question"], str(row["q"])
            asked = time.perf_counter()
            for event in service.stream([Turn("user", question)], SCOPE, options):
                if isinstance(event, Delta):
                    first_token.append(time.perf_counter() - asked)
                    break
            answer = service.answer([Turn("user", question)], SCOPE, options)
            lead = answer.text.split(" [", 1)[0]
            counts["lead"] += " ".join(lead.split()) in " ".join(row["answer"].split())
            counts["refused"] += answer.text == NOT_FOUND
            if answer.text != NOT_FOUND:
                words.append(len(_MARKER.sub("", answer.text).split()))
            references = [c.document_reference for c in answer.citations]
            counts["gold"] += gold in references
            counts["first"] += bool(references) and references[0] == gold
            counts["answered"] += bool(references)
            if answer.support_score is not None:
                scores.append(answer.support_score)
            raw_cited, raw_ok = raw_precision(question, retriever.last)
            counts["raw_cited"] += raw_cited
            counts["raw_ok"] += raw_ok
            cited = [by_reference[r] for r in references if r is not None]
            final_cited, final_ok = final_precision(answer.text, cited)
            counts["cited"] += final_cited
            counts["ok"] += final_ok
            counts["recall"] += any(card.reference == gold for card in retriever.last)
        elapsed = time.perf_counter() - started
        off = off_corpus(args.off_corpus)
        for question in off:
            counts["off_refused"] += (
                service.answer([Turn("user", question)], SCOPE, options).text == NOT_FOUND
            )

    n = len(rows)
    print(
        f"Baltimore Catechism: {n} questions, {len(cards)} cards, retrieval "
        f"{settings.retrieval} ({args.quality}), k={settings.retrieval_k}, extractive composer"
    )
    print(f"index built in {index_s:.1f} s; {elapsed / n * 1000:.1f} ms per question (all checks)")
    print()
    print("| metric | value |")
    print("|---|---|")
    print(
        f"| retrieval recall@{settings.retrieval_k} (gold among passages) | "
        f"{counts['recall'] / n:.3f} |"
    )
    print(f"| gold cited (any citation is the gold answer) | {counts['gold'] / n:.3f} |")
    print(f"| gold cited first ([1] is the gold answer) | {counts['first'] / n:.3f} |")
    print(f"| answers with a citation | {counts['answered'] / n:.3f} |")
    print(
        f"| citation precision, as generated | "
        f"{counts['raw_ok'] / max(counts['raw_cited'], 1):.3f} ({counts['raw_cited']} sentences) |"
    )
    print(
        f"| citation precision, after verification | "
        f"{counts['ok'] / max(counts['cited'], 1):.3f} ({counts['cited']} sentences) |"
    )
    print(f"| mean support score | {sum(scores) / max(len(scores), 1):.3f} |")
    print(f"| the first sentence is the gold answer's | {counts['lead'] / n:.3f} |")
    print(f"| median words (answered) | {statistics.median(words) if words else 0:.0f} |")
    print(f"| refused (every question is answerable) | {counts['refused'] / n:.3f} |")
    print(
        f"| off-corpus questions refused | "
        f"{counts['off_refused'] / max(len(off), 1):.3f} ({len(off)} questions) |"
    )
    first_token.sort()
    p50 = first_token[len(first_token) // 2] * 1000
    p95 = first_token[int(len(first_token) * 0.95)] * 1000
    print(f"| time to first token, p50 / p95 | {p50:.0f} / {p95:.0f} ms |")


if __name__ == "__main__":
    main()
