"""Answer quality of the embedded default: the Baltimore Catechism and SQuAD 2.0 dev articles.

Both parts write their cards straight into the configured index (the embedded default, as
ingest does) and ask every question through :class:`AnswerService` with the extractive
composer. Each part prints one table, one column per retrieval quality (``fast`` and
``precise`` by default).

The Baltimore Catechism: every answer is one card (its section heading as heading, its number
as reference). Over the questions:

- retrieval recall: the gold card is among the passages the composer read;
- gold cited: a citation of the answer is the gold card (and: the first citation is);
- citation precision: the share of the generator's cited sentences whose cited passage the
  grounding engine supports, as written (raw) and after verification moved or removed markers;
- the mean support score of the answers;
- the answer's first sentence is a sentence of the gold answer; its median words; refusals;
- time to first token (the first delta of the answer stream), p50 and p95;
- refusals of off-corpus questions: SQuAD 2.0 dev questions (Wikipedia articles the catechism
  does not cover) asked of the catechism.

SQuAD 2.0 dev, half its articles (``../shared/data/eval/squad2_dev_half.jsonl``): each
article's paragraphs are one collection. Per article, ``--per-article`` answerable and as many
unanswerable questions are asked in their article's collection, and half as many of its
questions in the next article's (their article is not indexed). The shipped answerability
coefficients were fitted on these articles, so refusals are also decided held out by article:
each question's answerability features (``groundwork.answer.answerability.features``) are
recorded, and a model fitted without its article (``bench.fit_answerability``'s
``leave_one_article_out``) decides. Both are printed, labelled: the gold answer in the
first sentence and median words (answerable questions answered), false refusals, refusals of
the unanswerable questions and of those whose article is not indexed; citation precision and
time to first token as for the catechism.

    .venv/bin/python -m bench.answer_quality [--part catechism|squad|both]
        [--quality fast|precise|both] [--limit N] [--off-corpus N] [--per-article N]
        [--data-dir DIR]   # keep the index here and reuse it next time
        [--cold]           # the embedder remembers no text it embedded
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from bench.fit_answerability import (
    cards_of,
    collection_of,
    leave_one_article_out,
    question_record,
    sample_questions,
)
from bench.fit_answerability import load as squad_rows
from groundwork.answer.citations import CitationStream
from groundwork.answer.relevance import gather
from groundwork.answer.service import AnswerOptions, AnswerService, Delta, Finish
from groundwork.answer.verification import GroundedVerifier
from groundwork.domain.cards import Card, Hit
from groundwork.embeddings.base import Embedder
from groundwork.embeddings.factory import bare_embedder
from groundwork.embeddings.memory import RememberingEmbedder
from groundwork.evaluation import run as evaluation
from groundwork.generation.base import GenerationRequest, Turn
from groundwork.generation.extractive import NOT_FOUND, ExtractiveComposer
from groundwork.grounding.heuristic import HeuristicVerifier
from groundwork.retrieval.base import Quality, SearchFilter
from groundwork.retrieval.embedded import EmbeddedIndex
from groundwork.retrieval.factory import get_retriever
from groundwork.retrieval.sentence_vectors import known
from groundwork.settings import Settings

DATA = (
    Path(__file__).resolve().parents[2]
    / "shared"
    / "data"
    / "corpora"
    / "baltimore-catechism"
    / "catechism.qa.jsonl"
)
SQUAD = DATA.parents[2] / "eval" / "squad2_dev_half.jsonl"
COLLECTION = "catechism"
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


@dataclass
class Remembering(evaluation.Remembering):
    """The configured index, remembering the cards of the last search it answered and its hits
    (their scores and stored sentence vectors)."""

    hits: list[Hit] = field(default_factory=list)

    def search(
        self,
        query: str,
        where: SearchFilter,
        k: int,
        *,
        quality: Quality = "precise",
        lexical: bool = True,
    ) -> list[Hit]:
        self.hits = super().search(query, where, k, quality=quality, lexical=lexical)
        return self.hits


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
    if not SQUAD.exists() or limit <= 0:
        return []
    rows = squad_rows(SQUAD)
    return [r["question"] for r in rows if not r["is_impossible"]][::7][:limit]


def first_token_ms(times: list[float]) -> str:
    times = sorted(times)
    if not times:
        return "–"
    p50 = times[len(times) // 2] * 1000
    p95 = times[min(int(len(times) * 0.95), len(times) - 1)] * 1000
    return f"{p50:.0f} / {p95:.0f} ms"


def ask(
    service: AnswerService, question: str, where: SearchFilter, options: AnswerOptions
) -> tuple[str, Finish, float]:
    """The whole answer, and the seconds to its first delta."""
    asked = time.perf_counter()
    first: float | None = None
    text = ""
    for event in service.stream([Turn("user", question)], where, options):
        if isinstance(event, Delta):
            first = first if first is not None else time.perf_counter() - asked
            text += event.text
        else:
            return text, event, first if first is not None else time.perf_counter() - asked
    raise AssertionError("an answer stream always ends with Finish")


def catechism(
    args: argparse.Namespace,
    service: AnswerService,
    retriever: Remembering,
    k: int,
    quality: Quality,
) -> dict[str, str]:
    cards, rows = load(args.data, args.limit)
    by_reference = {card.reference: card for card in cards}
    options = AnswerOptions(quality=quality)
    scope = SearchFilter(collections=[COLLECTION])
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
        for event in service.stream([Turn("user", question)], scope, options):
            if isinstance(event, Delta):
                first_token.append(time.perf_counter() - asked)
                break
        answer = service.answer([Turn("user", question)], scope, options)
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
            service.answer([Turn("user", question)], scope, options).text == NOT_FOUND
        )
    n = len(rows)
    return {
        "questions": f"{n}",
        f"retrieval recall@{k} (gold among passages)": f"{counts['recall'] / n:.3f}",
        "gold cited (any citation is the gold answer)": f"{counts['gold'] / n:.3f}",
        "gold cited first ([1] is the gold answer)": f"{counts['first'] / n:.3f}",
        "answers with a citation": f"{counts['answered'] / n:.3f}",
        "citation precision, as generated": (
            f"{counts['raw_ok'] / max(counts['raw_cited'], 1):.3f} ({counts['raw_cited']})"
        ),
        "citation precision, after verification": (
            f"{counts['ok'] / max(counts['cited'], 1):.3f} ({counts['cited']})"
        ),
        "mean support score": f"{sum(scores) / max(len(scores), 1):.3f}",
        "the first sentence is the gold answer's": f"{counts['lead'] / n:.3f}",
        "median words (answered)": f"{statistics.median(words) if words else 0:.0f}",
        "refused (every question is answerable)": f"{counts['refused'] / n:.3f}",
        "off-corpus questions refused": (
            f"{counts['off_refused'] / max(len(off), 1):.3f} ({len(off)})"
        ),
        "time to first token, p50 / p95": first_token_ms(first_token),
        "ms per question (all checks)": f"{elapsed / n * 1000:.0f}",
    }


def squad(
    args: argparse.Namespace,
    service: AnswerService,
    retriever: Remembering,
    embedder: Embedder,
    quality: Quality,
) -> dict[str, str]:
    rows = squad_rows(args.squad)
    by_url = {card.url: card for card in cards_of(rows)}
    sample = sample_questions(rows, args.per_article)
    options = AnswerOptions(quality=quality)
    composer = ExtractiveComposer()
    recorded: list[dict[str, Any]] = []
    first_token: list[float] = []
    counts = dict.fromkeys(("raw_cited", "raw_ok", "cited", "ok"), 0)
    for row, asked_in in sample:
        question = row["question"]
        where = SearchFilter(collections=[collection_of(asked_in)])
        text, finish, seconds = ask(service, question, where, options)
        first_token.append(seconds)
        passages = list(retriever.last)
        # As the service did, with the retrieval scores and the stored sentence vectors (the
        # question is remembered).
        hits = retriever.hits
        evidence = gather(
            question, passages, embedder, [h.score for h in hits], known(hits, embedder.dimension)
        )
        recorded.append(
            question_record(row, asked_in, evidence, composer.select(evidence))
            | {"shipped_refused": text == NOT_FOUND}
        )
        if text != NOT_FOUND:
            raw_cited, raw_ok = raw_precision(question, passages)
            counts["raw_cited"] += raw_cited
            counts["raw_ok"] += raw_ok
            cited = [by_url[c.source_url] for c in finish.citations]
            final_cited, final_ok = final_precision(text, cited)
            counts["cited"] += final_cited
            counts["ok"] += final_ok

    x = np.array([r["features"] for r in recorded], dtype=np.float64)
    y = np.array([r["indexed"] and not r["impossible"] for r in recorded], dtype=np.float64)
    articles = np.array([r["article"] for r in recorded])
    _, held_out = leave_one_article_out(x, y, articles)
    shipped = np.array([r["shipped_refused"] for r in recorded])
    answerable = y == 1
    unanswerable = np.array([r["indexed"] and r["impossible"] for r in recorded])
    elsewhere = np.array([not r["indexed"] for r in recorded])
    gold = np.array([r["gold_first"] for r in recorded])
    words = np.array([r["words"] for r in recorded])
    figures = {
        "questions (answerable / unanswerable / article not indexed)": (
            f"{answerable.sum()} / {unanswerable.sum()} / {elsewhere.sum()}"
        ),
    }
    for label, refused in (("held out by article", held_out), ("shipped model", shipped)):
        answered = answerable & ~refused
        figures |= {
            f"gold answer in the first sentence (answered), {label}": (
                f"{gold[answered].mean():.3f}" if answered.any() else "–"
            ),
            f"median words (answered), {label}": (
                f"{np.median(words[answered]):.0f}" if answered.any() else "–"
            ),
            f"false refusals (answerable refused), {label}": f"{refused[answerable].mean():.3f}",
            f"unanswerable questions refused, {label}": f"{refused[unanswerable].mean():.3f}",
            f"article not indexed: refused, {label}": f"{refused[elsewhere].mean():.3f}",
        }
    return figures | {
        "citation precision, as generated (answers given)": (
            f"{counts['raw_ok'] / max(counts['raw_cited'], 1):.3f} ({counts['raw_cited']})"
        ),
        "citation precision, after verification (answers given)": (
            f"{counts['ok'] / max(counts['cited'], 1):.3f} ({counts['cited']})"
        ),
        "time to first token, p50 / p95": first_token_ms(first_token),
    }


def build(settings: Settings, cards: list[Card]) -> float:
    """Index the cards (unless a reused data directory holds them already); seconds spent."""
    retriever = get_retriever(settings)
    started = time.perf_counter()
    by_collection: dict[str, list[Card]] = {}
    for card in cards:
        by_collection.setdefault(card.collection, []).append(card)
    for collection, group in by_collection.items():
        if retriever.count(collection) != len(group):
            for i in range(0, len(group), 256):
                retriever.upsert(group[i : i + 256])
    return time.perf_counter() - started


def table(title: str, columns: dict[str, dict[str, str]]) -> None:
    print(title)
    print()
    print("| figure | " + " | ".join(columns) + " |")
    print("|---|" + "---|" * len(columns))
    for name in next(iter(columns.values())):
        print(f"| {name} | " + " | ".join(values[name] for values in columns.values()) + " |")
    print()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=["catechism", "squad", "both"], default="both")
    parser.add_argument("--quality", choices=["fast", "precise", "both"], default="both")
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--squad", type=Path, default=SQUAD)
    parser.add_argument("--limit", type=int, default=None, help="ask only the first N questions")
    parser.add_argument(
        "--off-corpus", type=int, default=200, help="SQuAD questions asked of the catechism"
    )
    parser.add_argument(
        "--per-article", type=int, default=10, help="SQuAD questions of each kind per article"
    )
    parser.add_argument(
        "--data-dir", type=Path, default=None, help="keep the index here and reuse it next time"
    )
    parser.add_argument(
        "--cold", action="store_true", help="remember no embedding across questions"
    )
    args = parser.parse_args()
    qualities: list[Quality] = ["fast", "precise"] if args.quality == "both" else [args.quality]
    parts = ["catechism", "squad"] if args.part == "both" else [args.part]

    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(data_dir=args.data_dir or Path(tmp), bootstrap_docs=False)
        cards = (load(args.data, None)[0] if "catechism" in parts else []) + (
            cards_of(squad_rows(args.squad)) if "squad" in parts else []
        )
        index_s = build(settings, cards)
        print(
            f"retrieval {settings.retrieval}, k={settings.retrieval_k}, extractive composer; "
            f"{len(cards)} cards indexed in {index_s:.1f} s"
            + ("; no embedding remembered across questions" if args.cold else "")
        )
        print()
        catechism_columns: dict[str, dict[str, str]] = {}
        squad_columns: dict[str, dict[str, str]] = {}
        for quality in qualities:
            # Each quality starts as a fresh process would: the index and the answers share
            # one embedder (as get_retriever and AnswerService do), remembering nothing yet.
            embedder = RememberingEmbedder(
                bare_embedder(settings.embeddings), remember=0 if args.cold else 4096
            )
            retriever = Remembering(EmbeddedIndex(settings.index_path, embedder))
            service = AnswerService(
                retriever, ExtractiveComposer(), k=settings.retrieval_k, embedder=embedder
            )
            service.answer([Turn("user", "warm up")], SearchFilter(), AnswerOptions(quality))
            if "catechism" in parts:
                catechism_columns[quality] = catechism(
                    args, service, retriever, settings.retrieval_k, quality
                )
            if "squad" in parts:
                squad_columns[quality] = squad(args, service, retriever, embedder, quality)
        if catechism_columns:
            table("Baltimore Catechism", catechism_columns)
        if squad_columns:
            table(f"SQuAD 2.0 dev half, {args.per_article} per article and kind", squad_columns)


if __name__ == "__main__":
    main()
