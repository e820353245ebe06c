"""Retrieval and answers across languages, on parallel documents: the Open Source Guides.

Documents: the Open Source Guides (github.com/github/opensource.guide, CC-BY-4.0): the
articles under ``_articles/`` in English and their translations under ``_articles/<lang>/``.
The eight articles whose sections line up in every language measured are indexed, each
language in its own collection (``guide-<lang>``), cut into cards by the Markdown parser as
``groundwork ingest`` does. Questions: ``bench/data/guide_questions.jsonl``, 51 questions
about one section each, written in English for this benchmark and translated into eleven
languages by the same author (an AI model; no native speaker checked them). A question's gold
is every card of its section (the section's heading, matched in each language by position).

Parts (``--parts``):

- ``retrieval``: R@1 and R@5 (a gold card among the first five) of the passages an answer
  reads, in the question's detected language, one card per section first
  (``answer.passages``), per embedder, backend and
  quality (``--qualities``): each language's questions over its own documents (same
  language), and over the English documents (across languages).
- ``answers``: the extractive composer with the configured answer path, on the embedded
  index, each question asked as the routes ask it (in its detected language): questions in
  each language over the English documents and over their own language's; answered (not
  refused), gold cited, and time to first token.
- ``sides``: R@5 of each side of the embedded index on its own (BM25, the dense vectors,
  their fusion, ``fast``, ``precise``), per embedder, same language and over English: where
  the fused search gains or loses against its halves.
- ``mix`` (not in the default ``--parts``): R@5 by meaning alone, over the English documents
  and over each language's own, for each weight of the card's cosine and of its sentences'
  mean's against its best sentence's (``retrieval.meaning.CARD_WEIGHT`` and ``MEAN_WEIGHT``
  were chosen on de, es, ja, ru and ar over the English documents).
- ``hubs`` (not in the default ``--parts``): R@1 and R@5 by meaning alone, over the English
  documents, for each weight of the cards' hubness (``retrieval.hubness.WEIGHT`` was chosen on
  de, es, ja, ru and ar), with the sums over those languages and over the others. The ``mix``
  part above ranks without it.
- ``weights`` (not in the default ``--parts``): R@5 of the precise search in each language
  over its own documents, for each weight of the keyword side in the fusion
  (``retrieval.base.KEYWORD_WEIGHT``) and of the best sentence's nearness in the rerank
  (``retrieval.rerank.SENTENCE_WEIGHT``); the shipped ones were chosen on the same five
  languages as the mix.
- ``coverage`` (not in the default ``--parts``): the same, for each weight of the rerank's
  keyword coverage (``retrieval.rerank.COVERAGE_WEIGHT``), the other two as shipped.
- ``language``: the English and German documents in one collection; English questions with
  ``language: de``, and German questions asked as they are: how often a German passage is
  cited.

    .venv/bin/python -m bench.multilingual [--guide DIR] [--embedders e5,minilm]
        [--backends embedded,opensearch]
        [--parts retrieval,sides,answers,language,mix,hubs,weights,coverage]
        [--languages de,es,...] [--qualities precise,fast]
        [--cache FILE.npz]   # keep the embeddings for the next run

With ``GROUNDWORK_LATENT_TERMS=true`` the indexes write the cards' latent terms and the search
by meaning reads them, as the service does with that setting.

``--guide`` is an ``_articles`` folder of the repository above (default: the eight articles in
twelve languages kept in ``bench/data/opensource-guide``, with their licence and source).
OpenSearch needs ``GROUNDWORK_OPENSEARCH_URL``
(``eval "$(scripts/services.sh up)"``).
"""

from __future__ import annotations

import argparse
import html
import itertools
import json
import os
import re
import statistics
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import Any

from bench.fit_answerability import Memo
from bench.retrieval_quality import METHODS, precise_at, rankers
from groundwork.answer.passages import answer_passages
from groundwork.answer.service import AnswerOptions, AnswerService, Delta, Finish
from groundwork.chat.language import answer_language
from groundwork.domain.cards import Card
from groundwork.embeddings.base import Embedder
from groundwork.embeddings.factory import bare_embedder
from groundwork.generation.base import Turn
from groundwork.generation.extractive import NOT_FOUND, ExtractiveComposer
from groundwork.ingest.pipeline import cards_of, parse
from groundwork.retrieval.base import KEYWORD_WEIGHT, Quality, Retriever, SearchFilter
from groundwork.retrieval.embedded import EmbeddedIndex
from groundwork.retrieval.hubness import background
from groundwork.retrieval.meaning import DEPTH, by_meaning
from groundwork.retrieval.rerank import COVERAGE_WEIGHT, SENTENCE_WEIGHT
from groundwork.settings import get_settings

REPO = Path(__file__).resolve().parents[1]
GUIDE = REPO / "bench" / "data" / "opensource-guide" / "_articles"
QUESTIONS = REPO / "bench" / "data" / "guide_questions.jsonl"
ARTICLES = """starting-a-project building-community code-of-conduct finding-users
leadership-and-governance legal maintaining-balance-for-open-source-maintainers
metrics""".split()
LANGUAGES = "de es fr it pt ja zh ru ar hi ko".split()
#: The guide's folder of each language (Simplified Chinese for zh).
FOLDERS = {"en": "", "zh": "zh-hans"}
_HEADING = re.compile(r"^#{2,3} (.+)$", re.MULTILINE)


def normalised(heading: str) -> str:
    return "".join(ch for ch in heading.lower() if ch.isalnum())


def guide_cards(guide: Path, language: str) -> tuple[list[Card], dict[tuple[str, int], set[str]]]:
    """The cards of the eight articles in ``language``, and each section's card ids."""
    cards: list[Card] = []
    gold: dict[tuple[str, int], set[str]] = {}
    for article in ARTICLES:
        file = guide / FOLDERS.get(language, language) / f"{article}.md"
        raw = file.read_bytes()
        sid = f"{language}-{article}"
        found = cards_of(parse(".md", raw), f"guide-{language}", sid, file.name, [])
        # As the Markdown parser reads them: "pr&eacute;-lancement" is "pré-lancement".
        found_headings = _HEADING.findall(raw.decode().split("---", 2)[2])
        headings = [normalised(html.unescape(h)) for h in found_headings]
        for card in found:
            if card.heading and normalised(card.heading) in headings:
                section = headings.index(normalised(card.heading))
                gold.setdefault((article, section), set()).add(card.id)
        cards += found
    return cards, gold


def load_questions(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def cached(cache: Path | None, name: str) -> Path | None:
    """One cache file per embedder: a file holds one model's vectors."""
    return cache.with_suffix(f".{name}.npz") if cache else None


@contextmanager
def backend(name: str, embedder: Embedder) -> Iterator[Retriever]:
    """A fresh index of ``name`` for ``embedder``, removed afterwards."""
    terms = get_settings().latent_terms
    if name == "embedded":
        with tempfile.TemporaryDirectory() as tmp:
            yield EmbeddedIndex(Path(tmp) / "index.sqlite3", embedder, terms=terms)
        return
    from groundwork.retrieval.opensearch import OpenSearchIndex, connect

    url = os.environ.get("GROUNDWORK_OPENSEARCH_URL")
    if not url:
        raise SystemExit("GROUNDWORK_OPENSEARCH_URL is not set: eval $(scripts/services.sh up)")
    client = connect(url, region=None, service=None)
    index = f"bench-multilingual-{uuid.uuid4().hex[:8]}"
    engine = os.environ.get("GROUNDWORK_OPENSEARCH_KNN_ENGINE", "lucene")
    retriever = OpenSearchIndex(
        client, embedder, index=index, pipeline=index, engine=engine, replicas=0, refresh=True,
        terms=terms,
    )  # type: ignore[arg-type]  # fmt: skip
    try:
        yield retriever
    finally:
        client.indices.delete(index=index, params={"ignore_unavailable": "true"})
        client.transport.perform_request("DELETE", f"/_search/pipeline/{index}")


def write(retriever: Retriever, cards: list[Card]) -> float:
    """Index ``cards``; passages per second."""
    started = time.perf_counter()
    for start in range(0, len(cards), 64):
        retriever.upsert(cards[start : start + 64])
    return len(cards) / (time.perf_counter() - started)


Corpora = dict[str, tuple[list[Card], dict[tuple[str, int], set[str]]]]


@contextmanager
def guides(
    args: argparse.Namespace, name: str, memo: Memo
) -> Iterator[tuple[Retriever, Corpora, list[float]]]:
    """A fresh index of backend ``name`` holding the guides of every language measured (each
    its own collection): the index, each language's cards and gold, and its passages/s."""
    with backend(name, memo) as retriever:
        corpora = {lang: guide_cards(args.guide, lang) for lang in ["en", *args.languages]}
        speeds = [write(retriever, cards) for cards, _ in corpora.values()]
        memo.save()
        yield retriever, corpora, speeds


def searcher(retriever: Retriever, documents: str, quality: Quality) -> Callable[[str], list[str]]:
    """A question's first five cards over ``documents``' guides, in the question's detected
    language, as an answer reads them."""
    where = SearchFilter(collections=[f"guide-{documents}"])

    def rank(question: str) -> list[str]:
        language = answer_language(None, question)
        hits = answer_passages(retriever, question, where, 5, quality=quality, language=language)
        return [h.card.id for h in hits]

    return rank


def recall(
    rank: Callable[[str], list[str]],
    questions: list[dict[str, Any]],
    asked_in: str,
    gold: dict[tuple[str, int], set[str]],
) -> tuple[float, float, int]:
    """R@1, R@5 and how many questions had a gold section; ``rank`` gives a question's card
    ids, best first."""
    first = five = n = 0
    for row in questions:
        wanted = gold.get((row["article"], row["section"]))
        if not wanted:
            continue
        found = rank(row["questions"][asked_in])[:5]
        n += 1
        first += bool(found[:1] and found[0] in wanted)
        five += bool(wanted & set(found))
    return first / max(n, 1), five / max(n, 1), n


def retrieval(args: argparse.Namespace, questions: list[dict[str, Any]]) -> None:
    print("## Retrieval: R@1 / R@5 (questions with a gold section)")
    print()
    header = "| embedder | backend | quality | documents | "
    print(header + " | ".join(["en", *args.languages]) + " |")
    print("|---" * (4 + 1 + len(args.languages)) + "|")
    for name in args.embedders:
        memo = Memo(bare_embedder(name), cached(args.cache, name))
        for backend_name in args.backends:
            with guides(args, backend_name, memo) as (retriever, corpora, speeds):
                for quality, documents in itertools.product(args.qualities, ("same", "en")):
                    cells = []
                    for asked_in in ["en", *args.languages]:
                        docs = asked_in if documents == "same" else "en"
                        rank = searcher(retriever, docs, quality)
                        r1, r5, n = recall(rank, questions, asked_in, corpora[docs][1])
                        cells.append(f"{r1:.2f} / **{r5:.2f}** ({n})")
                    label = "own language" if documents == "same" else "English"
                    row = f"| {name} | {backend_name} | {quality} | {label} | "
                    print(row + " | ".join(cells) + " |")
                print(
                    f"| {name} | {backend_name} | | ingest | "
                    f"{statistics.median(speeds):.1f} passages/s (median over languages, "
                    "cached embeddings count as free) |"
                )
    print()


def sides(args: argparse.Namespace, questions: list[dict[str, Any]]) -> None:
    print("## Each side of the embedded index: R@5")
    print()
    print("| embedder | asked in | documents | " + " | ".join(METHODS) + " |")
    print("|---" * (3 + len(METHODS)) + "|")
    for name in args.embedders:
        memo = Memo(bare_embedder(name), cached(args.cache, name))
        with guides(args, "embedded", memo) as (retriever, corpora, _):
            assert isinstance(retriever, EmbeddedIndex)
            ranked = rankers(retriever)
            for asked_in in ["en", *args.languages]:
                for documents in dict.fromkeys([asked_in, "en"]):
                    where = SearchFilter(collections=[f"guide-{documents}"])
                    gold = corpora[documents][1]
                    cells = [
                        recall(partial(ranked[m], where=where), questions, asked_in, gold)[1]
                        for m in METHODS
                    ]
                    row_cells = " | ".join(f"{c:.2f}" for c in cells)
                    print(f"| {name} | {asked_in} | {documents} | {row_cells} |")
    print()


#: The card's weight and its sentences' mean's in the mix of ``mix`` (the best sentence has the
#: rest), and the languages the shipped ones were chosen on.
MIXES = ((1.0, 0.0), (0.75, 0.0), (0.5, 0.0), (0.5, 0.25), (0.5, 0.5), (0.25, 0.25), (0.25, 0.5))
CHOSEN_ON = frozenset("de es ja ru ar".split())


def mix(args: argparse.Namespace, questions: list[dict[str, Any]]) -> None:
    print("## By meaning alone, R@5 by the card's weight / its sentences' mean's in the mix")
    print()
    header = " | ".join(f"{card} / {mean}" for card, mean in MIXES)
    print(f"| asked in | documents | weight chosen on it | {header} |")
    print("|---" * (3 + len(MIXES)) + "|")
    memo = Memo(bare_embedder("e5"), cached(args.cache, "e5"))
    with guides(args, "embedded", memo) as (retriever, corpora, _):
        assert isinstance(retriever, EmbeddedIndex)
        for asked_in in ["en", *args.languages]:
            for documents in dict.fromkeys(["en", asked_in]):
                where = SearchFilter(collections=[f"guide-{documents}"])
                cells = []
                for card, mean in MIXES:

                    def rank(
                        question: str,
                        where: SearchFilter = where,
                        card: float = card,
                        mean: float = mean,
                    ) -> list[str]:
                        asked = memo.embed([question], role="query")[0]
                        nearest = retriever.hits(
                            retriever.vector_ranking(asked, where, DEPTH), sentences=True
                        )
                        mixed = by_meaning(asked, nearest, 5, card_weight=card, mean_weight=mean)
                        return [h.card.id for h in mixed]

                    r5 = recall(rank, questions, asked_in, corpora[documents][1])[1]
                    cells.append(f"{r5:.2f}")
                # Chosen on questions over the English documents only.
                chosen = "yes" if asked_in in CHOSEN_ON and documents == "en" else "no"
                print(f"| {asked_in} | {documents} | {chosen} | " + " | ".join(cells) + " |")
    print()


#: The hubness weights of ``hubs``.
HUB_WEIGHTS = (0.0, 0.25, 0.5, 0.75, 1.0)


def hubs(args: argparse.Namespace, questions: list[dict[str, Any]]) -> None:
    print("## By meaning alone over the English documents, R@1 / R@5 by the hubness's weight")
    print()
    print("| asked in | weight chosen on it | " + " | ".join(map(str, HUB_WEIGHTS)) + " |")
    print("|---" * (2 + len(HUB_WEIGHTS)) + "|")
    memo = Memo(bare_embedder("e5"), cached(args.cache, "e5"))
    shipped = background(memo.model)
    where = SearchFilter(collections=["guide-en"])
    sums = {chosen: [[0.0, 0.0] for _ in HUB_WEIGHTS] for chosen in (True, False)}
    with guides(args, "embedded", memo) as (retriever, corpora, _):
        assert isinstance(retriever, EmbeddedIndex)
        for asked_in in args.languages:
            cells = []
            for i, weight in enumerate(HUB_WEIGHTS):

                def rank(question: str, weight: float = weight) -> list[str]:
                    asked = memo.embed([question], role="query")[0]
                    ranking = retriever.vector_ranking(asked, where, DEPTH)
                    nearest = retriever.hits(ranking, sentences=True, meaning=True)
                    ranked = by_meaning(asked, nearest, 5, background=shipped, hub_weight=weight)
                    return [h.card.id for h in ranked]

                r1, r5, _ = recall(rank, questions, asked_in, corpora["en"][1])
                cells.append(f"{r1:.2f} / {r5:.2f}")
                total = sums[asked_in in CHOSEN_ON][i]
                total[0] += r1
                total[1] += r5
            chosen = "yes" if asked_in in CHOSEN_ON else "no"
            print(f"| {asked_in} | {chosen} | " + " | ".join(cells) + " |")
        for chosen, label in ((True, "sum, chosen on"), (False, "sum, held out")):
            cells = [f"{r1:.2f} / **{r5:.2f}**" for r1, r5 in sums[chosen]]
            print(f"| {label} | | " + " | ".join(cells) + " |")
    print()


#: The keyword weights and sentence weights of ``weights``.
KEYWORD_WEIGHTS = (0.5, 0.4, 0.3, 0.2)
SENTENCE_WEIGHTS = (0.0, 0.25, 0.5)


def weights(args: argparse.Namespace, questions: list[dict[str, Any]]) -> None:
    grid = itertools.product(KEYWORD_WEIGHTS, SENTENCE_WEIGHTS)
    sweep(
        args, questions, "the keyword weight and the sentence weight",
        [(f"{kw} / {sw}", kw, sw, COVERAGE_WEIGHT) for kw, sw in grid],
    )  # fmt: skip


#: The coverage weights of ``coverage``.
COVERAGE_WEIGHTS = (0.5, 0.35, 0.25, 0.1, 0.0)


def coverage(args: argparse.Namespace, questions: list[dict[str, Any]]) -> None:
    sweep(
        args, questions, "the rerank's coverage weight",
        [(str(w), KEYWORD_WEIGHT, SENTENCE_WEIGHT, w) for w in COVERAGE_WEIGHTS],
    )  # fmt: skip


def sweep(
    args: argparse.Namespace,
    questions: list[dict[str, Any]],
    swept: str,
    settings: list[tuple[str, float, float, float]],
) -> None:
    """R@5 of the precise search in each language over its own documents, for each of the
    ``settings``: a label, the keyword, sentence and coverage weights."""
    print(f"## Same language, precise: R@5 by {swept}")
    print()
    print("| asked in | weights chosen on it | " + " | ".join(s[0] for s in settings) + " |")
    print("|---" * (2 + len(settings)) + "|")
    memo = Memo(bare_embedder("e5"), cached(args.cache, "e5"))
    with guides(args, "embedded", memo) as (retriever, corpora, _):
        assert isinstance(retriever, EmbeddedIndex)
        for asked_in in ["en", *args.languages]:
            where = SearchFilter(collections=[f"guide-{asked_in}"])
            cells = []
            for _, keyword_weight, sentence_weight, coverage_weight in settings:
                rank = partial(
                    precise_at, retriever, memo, where, keyword_weight, sentence_weight,
                    coverage_weight=coverage_weight,
                )  # fmt: skip
                cells.append(f"{recall(rank, questions, asked_in, corpora[asked_in][1])[1]:.2f}")
            chosen = "yes" if asked_in in CHOSEN_ON else "no"
            print(f"| {asked_in} | {chosen} | " + " | ".join(cells) + " |")
    print()


def ask(
    service: AnswerService, question: str, collection: str, requested: str | None
) -> tuple[str, Finish, float]:
    """Asked as the routes ask: in the ``requested`` language, else the question's own."""
    where = SearchFilter(collections=[collection])
    options = AnswerOptions(language=answer_language(requested, question))
    started = time.perf_counter()
    first: float | None = None
    text = ""
    for event in service.stream([Turn("user", question)], where, options):
        if isinstance(event, Delta):
            first = time.perf_counter() - started if first is None else first
            text += event.text
        else:
            return text, event, first or time.perf_counter() - started
    raise AssertionError("an answer stream always ends with Finish")


def cited_cards(finish: Finish, cards: dict[str, Card]) -> list[Card]:
    by_place = {(c.url, c.text): c for c in cards.values()}
    return [by_place[(c.source_url, c.cited_text)] for c in finish.citations
            if (c.source_url, c.cited_text) in by_place]  # fmt: skip


def answers(args: argparse.Namespace, questions: list[dict[str, Any]]) -> None:
    memo = Memo(bare_embedder("e5"), cached(args.cache, "e5"))
    with guides(args, "embedded", memo) as (retriever, corpora, _):
        service = AnswerService(retriever, ExtractiveComposer(embedder=memo), k=5, embedder=memo)
        print("## Answers, extractive composer, embedded index (e5)")
        print()
        print("| asked in | documents | answered | gold section cited | first token p50 ms |")
        print("|---|---|---|---|---|")
        for asked_in in ["en", *args.languages]:
            for documents in dict.fromkeys([asked_in, "en"]):
                cards, gold = corpora[documents]
                by_id = {c.id: c for c in cards}
                answered = cited = n = 0
                times = []
                for row in questions:
                    wanted = gold.get((row["article"], row["section"]))
                    if not wanted:
                        continue
                    text, finish, first = ask(
                        service, row["questions"][asked_in], f"guide-{documents}", None
                    )
                    n += 1
                    times.append(first)
                    answered += text != NOT_FOUND
                    cited += any(c.id in wanted for c in cited_cards(finish, by_id))
                print(
                    f"| {asked_in} | {documents} | {answered / n:.2f} | {cited / n:.2f} | "
                    f"{statistics.median(times) * 1000:.0f} |"
                )
    print()


def language_preference(args: argparse.Namespace, questions: list[dict[str, Any]]) -> None:
    memo = Memo(bare_embedder("e5"), cached(args.cache, "e5"))
    with backend("embedded", memo) as retriever:
        english, _ = guide_cards(args.guide, "en")
        german, gold = guide_cards(args.guide, "de")
        both = [c.model_copy(update={"collection": "guide-both"}) for c in english + german]
        write(retriever, both)
        memo.save()
        by_id = {c.id: c for c in both}
        service = AnswerService(retriever, ExtractiveComposer(embedder=memo), k=5, embedder=memo)
        print("## `language`: English and German documents in one collection")
        print()
        print("| question | `language` | answered | cites German | cites the German gold |")
        print("|---|---|---|---|---|")
        for asked_in, requested in (("en", "de"), ("de", None), ("en", None)):
            answered = german_cited = gold_cited = 0
            for row in questions:
                text, finish, _ = ask(service, row["questions"][asked_in], "guide-both", requested)
                cited = cited_cards(finish, by_id)
                answered += text != NOT_FOUND
                german_cited += bool(cited) and all(c.language == "de" for c in cited)
                wanted = gold.get((row["article"], row["section"]), set())
                gold_cited += any(c.id in wanted for c in cited)
            n = len(questions)
            print(
                f"| {asked_in} | {requested or 'none'} | {answered / n:.2f} | "
                f"{german_cited / n:.2f} | {gold_cited / n:.2f} |"
            )
    print()


PARTS: dict[str, Callable[[argparse.Namespace, list[dict[str, Any]]], None]] = {
    "retrieval": retrieval,
    "sides": sides,
    "answers": answers,
    "language": language_preference,
    "mix": mix,
    "hubs": hubs,
    "weights": weights,
    "coverage": coverage,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--guide", type=Path, default=GUIDE)
    parser.add_argument("--questions", type=Path, default=QUESTIONS)
    parser.add_argument("--embedders", default="e5,minilm")
    parser.add_argument("--backends", default="embedded,opensearch")
    parser.add_argument("--parts", default="retrieval,sides,answers,language")
    parser.add_argument("--languages", default=",".join(LANGUAGES))
    parser.add_argument("--qualities", default="precise,fast", help="of the retrieval part")
    parser.add_argument("--cache", type=Path, default=None, help="keep the embeddings here")
    args = parser.parse_args()
    args.embedders = args.embedders.split(",")
    args.backends = args.backends.split(",")
    args.languages = args.languages.split(",")
    args.qualities = args.qualities.split(",")
    if not args.guide.is_dir():
        raise SystemExit(f"{args.guide}: the Open Source Guides' _articles folder is needed")
    questions = load_questions(args.questions)
    for part in args.parts.split(","):
        PARTS[part](args, questions)


if __name__ == "__main__":
    main()
