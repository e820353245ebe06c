"""Fit and measure how the extractive composer reads passages, on the real-question benchmark
with each corpus held out in turn.

Every corpus of ``bench/data/real`` is ingested (as ``bench.real_questions`` does) and each
question searched once per retrieval quality, with 20 English questions of the next corpus
asked of each corpus as questions nothing in it answers; the passages found are recorded
(``--records``), so a refit reads them instead of searching again, and every text embedded is
kept in ``--cache`` (an ``.npz``), so a refit embeds nothing it embedded before. Each question
is then read as :mod:`groundwork.answer.relevance` reads it, every unit embedded, and labelled
with the judge of ``groundwork eval``: a unit answers when, quoted by the composer, the
answer's first sentence holds an expected fragment.

For each corpus in turn, on the other corpora's questions (both qualities; never those of a
corpus kept apart for measurement, ``"apart": true`` in its ``corpus.json``): the passage weights
(a conditional logit over each question's passages: does one of its units answer), the unit
weights (a conditional logit over the units the service would embed and score, the learned
nearness's 384 dimension weights among them: ``groundwork.answer.nearness``), the confidence
(a logistic model: does the first unit answer) and its threshold (refusing 9.5% of the
answerable questions). The held-out corpus is answered with them. Printed: per quality and
corpus, the first sentence answering, the right source cited first, absent questions refused,
false refusals, the confidence's AUROC, another corpus's questions refused; the curves of false
refusals against refused absent questions by threshold, the corpora kept apart in rows of
their own, and the first figures again by the question's language over the corpora fitted on;
and what ships, fitted on every corpus not kept apart.

    .venv/bin/python -m bench.fit_reading [--records FILE.jsonl] [--cache FILE.npz]
        [--data-dir DIR]   # keep the indexes here and reuse them
        [--misses N]       # and N answers judged wrong, to read by hand
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
from tqdm import tqdm

from bench.fit_answerability import Memo, auroc, fit, predict, threshold_for
from bench.real_questions import Corpus, corpora, ingest
from groundwork.answer.confidence import features as confidence_features
from groundwork.answer.metadata import metadata_answer
from groundwork.answer.nearness import nearness
from groundwork.answer.passages import answer_passages
from groundwork.answer.relevance import (
    MAX_EMBEDDED,
    UNIT_FEATURES,
    Candidate,
    Evidence,
    Reading,
    evidence_of,
    read,
)
from groundwork.chat.language import answer_language
from groundwork.domain.cards import Card
from groundwork.embeddings.base import Role
from groundwork.embeddings.factory import get_embedder
from groundwork.embeddings.models import E5_SMALL
from groundwork.evaluation.judge import first_sentence, holds_answer, same_source, under_section
from groundwork.evaluation.questions import EvalQuestion
from groundwork.evaluation.summary import CURVE
from groundwork.generation.extractive import quoted
from groundwork.retrieval.base import Quality, Retriever, SearchFilter
from groundwork.retrieval.embedded import EmbeddedIndex
from groundwork.settings import Settings
from groundwork.storage.factory import get_storage

#: The learned nearness is fitted as one weight per dimension of the question's and the unit's
#: vectors' product; scaled by this, the fit's ridge (1) holds them back as much as held-out
#: figures allow (20–40 gave the same first sentences within a point, 10 and 60 a point less).
NEARNESS_SCALE = 30.0
#: The unit's cosine with the question's topic (the question embedded as a passage) is fitted
#: times this, against the same ridge (5 gave the first sentence a point less, held out).
TOPICAL_SCALE = 10.0
DIMENSION = E5_SMALL.dimension

#: Questions of the next corpus asked of each corpus (none of them is answered there): they
#: teach the confidence that an answer to a question on another topic answers nothing.
FOREIGN = 20


def foreign(corpus: Corpus, others: list[Corpus]) -> list[EvalQuestion]:
    """Answerable questions of the corpus after ``corpus``, as questions it does not answer."""
    following = others[(others.index(corpus) + 1) % len(others)]
    asked = [q for q in following.evaluation_questions() if q.answerable and q.language == "en"]
    return [
        EvalQuestion(id=f"{corpus.name}-foreign-{q.id}", question=q.question, answerable=False)
        for q in asked[:: max(len(asked) // FOREIGN, 1)][:FOREIGN]
    ]


def collect(
    corpus: Corpus,
    settings: Settings,
    retriever: Retriever,
    quality: Quality,
    questions: list[EvalQuestion],
) -> list[dict[str, Any]]:
    """Each question with the passages retrieval gives the answer pipeline from the corpus,
    each marked with whether it is an expected source (and section)."""
    storage = get_storage(settings)
    where = SearchFilter(collections=[corpus.name])
    locations: dict[str, str] = {}
    out = []
    for q in tqdm(questions, desc=f"{corpus.name} ({quality})", leave=False):
        language = answer_language(None, q.question)  # as the routes and `groundwork eval` ask
        hits = answer_passages(
            retriever, q.question, where, settings.retrieval_k, quality=quality, language=language
        )
        passages = []
        for hit in hits:
            card = hit.card
            if card.source_id not in locations:
                source = storage.get_source(card.source_id)
                locations[card.source_id] = source.location if source else card.url
            named = any(
                same_source(locations[card.source_id], card.url, card.title, s) for s in q.source
            )
            if named and q.section is not None:
                named = under_section([card.title or "", *card.heading_path], q.section)
            passages.append(
                {"card": card.model_dump(mode="json"), "score": hit.score, "right": named}
            )
        out.append(
            {
                "corpus": corpus.name,
                "quality": quality,
                "foreign": "-foreign-" in q.id,
                **q.model_dump(mode="json"),
                "passages": passages,
            }
        )
    return out


def records(path: Path | None, data_dir: Path | None, memo: Memo) -> list[dict[str, Any]]:
    """The questions' passages, from the embedded index built with ``memo``: what ingest and
    search embed is kept for the reading."""
    if path is not None and path.exists():
        return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(
            data_dir=data_dir or Path(tmp), bootstrap_docs=False, starters_per_source=0
        )
        retriever = EmbeddedIndex(settings.index_path, memo, terms=settings.latent_terms)
        chosen = corpora()
        for corpus in chosen:
            ingest(corpus, settings, retriever)
        memo.save()
        for quality in ("fast", "precise"):
            for corpus in chosen:
                asked = corpus.evaluation_questions() + foreign(corpus, chosen)
                rows += collect(corpus, settings, retriever, quality, asked)
    if path is not None:
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return rows


@dataclass
class Question:
    """One recorded question read as the composer reads it, every unit embedded."""

    row: dict[str, Any]
    cards: list[Card]
    reading: Reading
    similarity: dict[int, float]  # every embedded unit's, not only those the service embeds
    asked: npt.NDArray[np.float32]  # the question's vector
    topic: npt.NDArray[np.float32]  # the question's vector as a passage
    vectors: dict[int, npt.NDArray[np.float32]]  # every embedded unit's
    passage_labels: npt.NDArray[np.float64]  # each passage has a unit that answers
    unit_labels: dict[int, bool]  # each candidate unit, quoted, answers (first sentence)

    @property
    def corpus(self) -> str:
        return str(self.row["corpus"])

    @property
    def answerable(self) -> bool:
        return bool(self.row["answerable"])


def read_all(rows: list[dict[str, Any]], memo: Memo) -> list[Question]:
    readings, cards_of = [], []
    for row in rows:
        cards = [Card.model_validate(p["card"]) for p in row["passages"]]
        cards_of.append(cards)
        readings.append(read(row["question"], cards, [p["score"] for p in row["passages"]]))
    asked: list[tuple[Role, list[str]]] = [
        ("query", [r["question"] for r in rows]),
        (
            "passage",
            [r["question"] for r in rows]
            + [
                reading.embedded_text(i)
                for reading in readings
                for i, placed in enumerate(reading.placed)
                if placed.unit.kind != "code"
            ],
        ),
    ]
    for role, texts in asked:
        missing = list(dict.fromkeys(t for t in texts if f"{role}\t{t}" not in memo.seen))
        for start in tqdm(range(0, len(missing), 256), desc=f"embedding ({role})", unit="batch"):
            memo.embed(missing[start : start + 256], role=role)
    memo.save()
    out = []
    for row, cards, reading in zip(rows, cards_of, readings, strict=True):
        question = memo.seen[f"query\t{row['question']}"]
        topic = memo.seen[f"passage\t{row['question']}"]
        vectors = {
            i: memo.seen[f"passage\t{reading.embedded_text(i)}"]
            for i, placed in enumerate(reading.placed)
            if placed.unit.kind != "code"
        }
        similarity = {i: float(vector @ question) for i, vector in vectors.items()}
        answers = tuple(row["answers"])
        labels = {}
        for i, placed in enumerate(reading.placed):
            if placed.candidate and row["answerable"]:
                candidate = _candidate(reading, i)
                labels[i] = holds_answer(first_sentence(quoted(candidate)), answers)
        passage_labels = np.zeros(len(reading.by_passage))
        for i, good in labels.items():
            if good:
                passage_labels[reading.placed[i].passage] = 1.0
        out.append(
            Question(
                row, cards, reading, similarity, question, topic, vectors, passage_labels, labels
            )
        )
    return out


def _candidate(reading: Reading, i: int) -> Candidate:
    """Unit ``i`` as the composer would quote it (its score aside)."""
    placed = reading.placed[i]
    text, intro = reading.shown_with(i)
    return Candidate(
        placed.passage, placed.position, text, 0.0, placed.coverage, frozenset(),
        intro=intro, rejected=reading.rejected[placed.passage],
    )  # fmt: skip


# ---------------------------------------------------------------- conditional logit


@dataclass
class Groups:
    """Choices stacked: row ``i`` of ``x`` is an option of group ``group[i]``."""

    x: npt.NDArray[np.float64]
    y: npt.NDArray[np.float64]
    group: npt.NDArray[np.int64]

    @property
    def count(self) -> int:
        return int(self.group.max()) + 1 if len(self.group) else 0


def stack(options: list[tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]]) -> Groups:
    kept = [(x, y) for x, y in options if len(y) and y.any()]
    return Groups(
        np.vstack([x for x, _ in kept]),
        np.concatenate([y for _, y in kept]),
        np.concatenate([np.full(len(y), g) for g, (_, y) in enumerate(kept)]),
    )


def fit_choice(groups: Groups, ridge: float = 1.0, steps: int = 60) -> npt.NDArray[np.float64]:
    """Weights maximising the probability of choosing one of each group's good options
    (softmax over the group), by Newton's method with an L2 penalty."""
    x, y, g, n = groups.x, groups.y, groups.group, groups.count
    dim = x.shape[1]
    w = np.zeros(dim)

    def moments(s: npt.NDArray[np.float64], mask: npt.NDArray[np.float64]) -> tuple[Any, Any, Any]:
        e = np.exp(s - np.max(s)) * mask
        z = np.bincount(g, e, n)
        p = e / z[g]
        mean = np.zeros((n, dim))
        np.add.at(mean, g, p[:, None] * x)
        second = (p[:, None] * x).T @ x
        return z, mean, second

    def objective(w: npt.NDArray[np.float64]) -> float:
        s = x @ w
        top = np.max(s)
        e = np.exp(s - top)
        return float(
            np.log(np.bincount(g, e * y, n)).sum()
            - np.log(np.bincount(g, e, n)).sum()
            - ridge / 2 * w @ w
        )

    current = objective(w)
    for _ in range(steps):
        s = x @ w
        _, mean_all, second_all = moments(s, np.ones(len(y)))
        _, mean_pos, second_pos = moments(s, y)
        gradient = mean_pos.sum(0) - mean_all.sum(0) - ridge * w
        hessian = (second_pos - mean_pos.T @ mean_pos) - (second_all - mean_all.T @ mean_all)
        hessian -= ridge * np.eye(dim)
        try:
            step = -np.linalg.solve(hessian, gradient)
        except np.linalg.LinAlgError:
            step = gradient
        if step @ gradient <= 0:  # not an ascent direction: the problem is not concave there
            step = gradient / (np.abs(gradient).max() + 1e-9)
        t = 1.0
        while t > 1e-4:
            trial = objective(w + t * step)
            if trial >= current:
                break
            t /= 2
        if t <= 1e-4:
            break
        w, previous, current = w + t * step, current, trial
        if current - previous < 1e-7:
            break
    return w


def passage_options(q: Question) -> tuple[Any, Any]:
    return np.array(q.reading.passage_features, dtype=np.float64), q.passage_labels


def unit_options(
    q: Question, passage_weights: Sequence[float], budget: int = MAX_EMBEDDED
) -> tuple[list[int], npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """The candidates the service would score, their UNIT_FEATURES and labels; in place of the
    learned nearness, the products of the question's and the unit's vectors' dimensions, times
    NEARNESS_SCALE, and the unit's cosine with the question's topic, times TOPICAL_SCALE (their
    weights, fitted, are the nearness's)."""
    reading = q.reading
    scores = reading.passage_scores(passage_weights)
    embedded = reading.to_embed(reading.passage_order(scores), budget)
    similarity = {i: q.similarity[i] for i in embedded}
    chosen, rows = [], []
    for i, placed in enumerate(reading.placed):
        shown_by = reading.embedded_as(i)
        if not placed.candidate or shown_by not in similarity:
            continue
        chosen.append(i)
        vector = q.vectors.get(shown_by)
        products = NEARNESS_SCALE * q.asked * vector if vector is not None else np.zeros(DIMENSION)
        topical = TOPICAL_SCALE * float(vector @ q.topic) if vector is not None else 0.0
        lexical = reading.unit_features(i, similarity, scores)[:-1]
        rows.append(np.concatenate([lexical, products, [topical]]))
    x = np.array(rows, dtype=np.float64).reshape(len(rows), len(UNIT_FEATURES) + DIMENSION)
    y = np.array([q.unit_labels.get(i, False) for i in chosen], dtype=np.float64)
    return chosen, x, y


@dataclass
class Model:
    passage: npt.NDArray[np.float64]
    unit: npt.NDArray[np.float64]
    nearness: npt.NDArray[np.float64]  # groundwork.answer.nearness.WEIGHTS
    topical: float  # groundwork.answer.nearness.TOPICAL_WEIGHT


def fit_model(questions: list[Question]) -> Model:
    passage = fit_choice(stack([passage_options(q) for q in questions if q.answerable]))
    unit = fit_choice(stack([unit_options(q, passage)[1:] for q in questions if q.answerable]))
    lexical = len(UNIT_FEATURES) - 1
    return Model(
        passage,
        np.append(unit[:lexical], 1.0),
        NEARNESS_SCALE * unit[lexical:-1],
        TOPICAL_SCALE * float(unit[-1]),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=Path, help="reuse (or write) the questions' passages")
    parser.add_argument("--data-dir", type=Path, help="keep the indexes here and reuse them")
    parser.add_argument("--cache", type=Path, help="keep the embeddings here (.npz)")
    parser.add_argument(
        "--misses",
        type=int,
        default=0,
        help="also print this many held-out precise answers judged wrong, drawn at random, to "
        "read by hand",
    )
    args = parser.parse_args()
    memo = Memo(get_embedder(), args.cache)
    rows = records(args.records, args.data_dir, memo)
    questions = read_all(rows, memo)
    report(questions, args.misses)


def evidence_for(q: Question, model: Model) -> Evidence:
    """The evidence the service would gather for ``q`` with ``model``'s weights."""
    reading = q.reading
    scores = reading.passage_scores(model.passage)
    embedded = reading.to_embed(reading.passage_order(scores))
    similarity = {i: q.similarity[i] for i in embedded}
    vectors = {i: q.vectors[i] for i in embedded}
    learned = nearness(
        q.asked, vectors, E5_SMALL, model.nearness, topic=q.topic, topical=model.topical
    )
    card_answer = metadata_answer(q.row["question"], q.cards)
    return evidence_of(reading, q.cards, similarity, scores, card_answer, model.unit, learned)


@dataclass
class Judged:
    """One question answered under a model fitted without its corpus."""

    question: Question
    answers: bool  # the first unit holds an expected fragment
    right_source: bool
    features: tuple[float, ...]
    opening: str = ""  # the answer's first sentence
    confidence: float = 0.0
    refused: bool = False

    @property
    def correct(self) -> bool:
        return self.question.answerable and not self.refused and self.answers


def judge(q: Question, model: Model) -> Judged:
    return judge_evidence(q, evidence_for(q, model))


def judge_evidence(q: Question, evidence: Evidence) -> Judged:
    best = evidence.best
    answers = right = False
    opening = ""
    if evidence.card_answer is not None:
        passage, opening = evidence.card_answer
        answers = q.answerable and holds_answer(opening, tuple(q.row["answers"]))
        right = bool(q.row["passages"][passage]["right"])
    elif best is not None:
        opening = first_sentence(quoted(best))
        answers = q.answerable and holds_answer(opening, tuple(q.row["answers"]))
        right = bool(q.row["passages"][best.passage]["right"])
    return Judged(q, answers, right, confidence_features(evidence), opening)


def calibrated(train: list[Judged], test: list[Judged]) -> tuple[npt.NDArray[np.float64], float]:
    """Fit the confidence on ``train``, score ``test``; the threshold refusing at most
    CALIBRATION_FALSE_REFUSALS of ``train``'s answerable questions."""
    x = np.array([j.features for j in train])
    y = np.array([j.question.answerable and j.answers for j in train], dtype=np.float64)
    w = fit(x, y)
    answerable = np.array([j.question.answerable for j in train])
    cut = threshold_for(predict(w, x[answerable]))
    for j in test:
        j.confidence = float(predict(w, np.array([j.features]))[0])
        j.refused = j.confidence < cut
    return w, cut


def held_out(questions: list[Question], apart: frozenset[str] = frozenset()) -> list[Judged]:
    """Every question judged with the weights, confidence and threshold fitted on the other
    corpora, never on those kept ``apart`` (which are only measured)."""
    out: list[Judged] = []
    for name in tqdm(sorted({q.corpus for q in questions}), desc="leave one corpus out"):
        train = [q for q in questions if q.corpus != name and q.corpus not in apart]
        model = fit_model(train)
        test = [judge(q, model) for q in questions if q.corpus == name]
        calibrated([judge(q, model) for q in train], test)
        out += test
    return out


def columns(rows: list[Judged]) -> tuple[list[bool], list[bool], list[bool], list[bool], float]:
    """The figures of ``rows``: per answerable question whether the first sentence answers and
    whether the right source is cited first, unrefused; per absent question whether it is
    refused; per answerable question whether it is refused; and the confidence's AUROC."""
    answerable = [j for j in rows if j.question.answerable]
    return (
        [j.correct for j in answerable],
        [not j.refused and j.right_source for j in answerable],
        [j.refused for j in rows if not j.question.answerable],
        [j.refused for j in answerable],
        auroc(np.array([j.confidence for j in rows]), np.array([j.correct for j in rows], float)),
    )


def share(flags: Sequence[bool]) -> str:
    return f"{np.mean(flags):.2f}" if len(flags) else "–"


def language_of(j: Judged) -> str:
    """The language the question is asked in (English where its row names none)."""
    return str(j.question.row.get("language") or "en")


def print_tables(judged: list[Judged], apart: frozenset[str] = frozenset()) -> None:
    """Per quality, a row per corpus, then ``overall`` (the corpora fitted on, each held out)
    and ``kept apart`` (those never fitted on), where there are any."""
    names = sorted({j.question.corpus for j in judged})
    groups = [*names, "overall", *(["kept apart"] if apart else [])]

    def within(j: Judged, group: str) -> bool:
        corpus = j.question.corpus
        if group == "overall":
            return corpus not in apart
        return corpus in apart if group == "kept apart" else corpus == group

    def asked(quality: str, group: str) -> list[Judged]:
        return [j for j in judged if j.question.row["quality"] == quality and within(j, group)]

    for quality in ("fast", "precise"):
        print(f"### {quality}, each corpus held out\n")
        print(
            "| corpus | questions | first sentence answers | right source first | absent refused"
            " | false refusals | confidence AUROC | another corpus's refused |"
        )
        print("|---|---|---|---|---|---|---|---|")
        for name in groups:
            everyone = asked(quality, name)
            rows = [j for j in everyone if not j.question.row.get("foreign")]
            others = [j.refused for j in everyone if j.question.row.get("foreign")]
            first, source, absent, false, area = columns(rows)
            print(
                f"| {name} | {len(rows)} | {share(first)} | {share(source)} | {share(absent)} | "
                f"{share(false)} | {area:.2f} | {share(others)} |"
            )
        print()
        print(f"### {quality}, by the question's language (the corpora fitted on, each held out)\n")
        print(
            "| language | questions | first sentence answers | right source first"
            " | absent refused | false refusals |"
        )
        print("|---|---|---|---|---|---|")
        fitted = [j for j in asked(quality, "overall") if not j.question.row.get("foreign")]
        for language in sorted({language_of(j) for j in fitted}):
            rows = [j for j in fitted if language_of(j) == language]
            first, source, absent, false, _ = columns(rows)
            print(
                f"| {language} | {len(rows)} | {share(first)} | {share(source)} | {share(absent)}"
                f" | {share(false)} |"
            )
        print()
        print(f"### {quality}: false refusals / absent refused, by confidence threshold\n")
        print("| corpus | " + " | ".join(f"{t:.1f}" for t in CURVE) + " |")
        print("|---|" + "---|" * len(CURVE))
        for name in groups:
            rows = [j for j in asked(quality, name) if not j.question.row.get("foreign")]
            cells = []
            for t in CURVE:
                false = share([j.confidence < t for j in rows if j.question.answerable])
                absent = share([j.confidence < t for j in rows if not j.question.answerable])
                cells.append(f"{false} / {absent}")
            print(f"| {name} | " + " | ".join(cells) + " |")
        print()


def print_misses(judged: list[Judged], count: int) -> None:
    """``count`` answers of ``precise`` judged not to answer though given, drawn with a fixed
    seed: how strict the judge is, read by hand (docs/evaluation.md)."""
    misses = [
        j for j in judged
        if j.question.row["quality"] == "precise" and j.question.answerable
        and not j.refused and not j.answers
    ]  # fmt: skip
    print(f"### {count} of the {len(misses)} answers judged wrong (precise), at random\n")
    for j in random.Random(0).sample(misses, min(count, len(misses))):
        row = j.question.row
        print(f"- {row['id']}: {row['question']}")
        print(f"  - expected: {' | '.join(row['answers'])}")
        print(f"  - first sentence: {' '.join(j.opening.split())[:400]}")
    print()


def report(questions: list[Question], misses: int = 0) -> None:
    apart = frozenset(corpus.name for corpus in corpora() if corpus.apart)
    judged = held_out(questions, apart)
    print_tables(judged, apart)
    if misses:
        print_misses(judged, misses)
    fitting = [q for q in questions if q.corpus not in apart]
    model = fit_model(fitting)
    w, cut = calibrated([judge(q, model) for q in fitting], [])
    print("fitted on every corpus not kept apart (what groundwork.answer ships):")
    print(f"relevance.PASSAGE_WEIGHTS = ({', '.join(f'{v:.3f}' for v in model.passage)})")
    print(f"relevance.UNIT_WEIGHTS = ({', '.join(f'{v:.3f}' for v in model.unit)})")
    print(f"nearness.WEIGHTS = ({', '.join(f'{v:.3f}' for v in model.nearness)})")
    print(f"nearness.TOPICAL_WEIGHT = {model.topical:.3f}")
    print(f"confidence.COEFFICIENTS = ({', '.join(f'{v:.3f}' for v in w)})")
    print(f"confidence.THRESHOLD = {cut:.3f}")


if __name__ == "__main__":
    main()
