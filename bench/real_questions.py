"""The real-question benchmark: questions people ask, over public corpora of different kinds.

Each corpus under ``bench/data/real`` (see its README) is ingested as a folder, as
``groundwork ingest`` does, into a collection of its own, and asked its questions through the
answer pipeline with the configured backends (embedded by default), once per retrieval
quality. ``groundwork eval`` judges each answer (``groundwork.evaluation``): the first sentence
holds an expected fragment; the first citation is the expected document (and section); the
cited sentences are supported; questions the documents do not answer are refused. One table
per quality prints a row per corpus and overall, then the refusal curve per corpus.

``--check`` only verifies the question files: their fields, that every expected fragment is in
its source document as ingested, and the counts per corpus.

    .venv/bin/python -m bench.real_questions [CORPUS ...] [--quality fast|precise|both]
        [--data-dir DIR]   # keep the indexes here and reuse them next time
        [--report DIR]     # also write each corpus's report (Markdown, a row per question)
    .venv/bin/python -m bench.real_questions --check [CORPUS ...]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from tqdm import tqdm

from groundwork.embeddings import factory as embedder_factory
from groundwork.evaluation.judge import normalized
from groundwork.evaluation.questions import EvalQuestion
from groundwork.evaluation.report import document, number
from groundwork.evaluation.run import Evaluation, Outcome
from groundwork.evaluation.summary import refusal_curve, totals
from groundwork.generation.factory import get_generator
from groundwork.grounding.factory import get_verifier
from groundwork.ingest.pipeline import Ingestor, discover, parse
from groundwork.retrieval.base import Quality, Retriever
from groundwork.retrieval.factory import get_retriever
from groundwork.settings import Settings
from groundwork.storage.factory import get_storage

ROOT = Path(__file__).resolve().parent / "data" / "real"
SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
KINDS = frozenset({"software", "law", "religion", "policy", "science", "history"})
LANGUAGES = frozenset({"en", "it", "pt", "es", "de", "fr"})
#: At least this many of each per corpus: answerable in the documents' language, absent, other
#: languages.
MINIMUMS = {"answerable": 40, "absent": 10, "other languages": 10}


@dataclass(frozen=True)
class Corpus:
    name: str
    kind: str
    language: str
    folder: Path  # the corpus folder under bench/data/real
    documents: Path  # its documents: its docs/, or a folder or file of ../shared/data
    apart: bool = False  # kept apart for measurement: no weight is fitted on it

    @property
    def root(self) -> Path:
        """The folder ingested from: sources are named relative to it."""
        return self.documents if self.documents.is_dir() else self.documents.parent

    def path_of(self, source: str) -> Path:
        """A question's ``source`` (relative to the corpus folder) as a file."""
        if source.startswith("shared:"):
            return SHARED / source.removeprefix("shared:")
        return self.folder / source

    def questions(self) -> list[dict[str, Any]]:
        lines = (self.folder / "questions.jsonl").read_text(encoding="utf-8").splitlines()
        return [json.loads(line) for line in lines if line.strip()]

    def evaluation_questions(self) -> list[EvalQuestion]:
        """The questions with their sources as ingested: relative to the documents' folder."""
        asked = []
        for row in self.questions():
            sources = row.get("source") or []
            sources = [sources] if isinstance(sources, str) else sources
            located = [self.path_of(s).relative_to(self.root).as_posix() for s in sources]
            asked.append(EvalQuestion.model_validate({**row, "source": located}))
        return asked


def corpora(names: list[str] | None = None) -> list[Corpus]:
    found = []
    for meta in sorted(ROOT.glob("*/corpus.json")):
        data = json.loads(meta.read_text(encoding="utf-8"))
        if names and data["name"] not in names:
            continue
        where = data["documents"]
        if where.startswith("shared:"):
            documents = SHARED / where.removeprefix("shared:")
        else:
            documents = meta.parent / where
        found.append(
            Corpus(
                data["name"],
                data["kind"],
                data["language"],
                meta.parent,
                documents,
                apart=data.get("apart", False) is True,
            )
        )
    return found


@cache
def document_text(path: Path) -> str:
    """The document as ingest reads it: every passage's headings and text, normalized."""
    document = parse(path.suffix, path.read_bytes())
    parts = [document.title or ""]
    for passage in document.passages:
        parts.extend([*passage.heading_path, passage.text])
    return normalized("\n".join(parts))


def problems(corpus: Corpus) -> list[str]:
    """What is wrong with the corpus's files, one line each."""
    found: list[str] = []
    if corpus.kind not in KINDS:
        found.append(f"kind {corpus.kind!r} is not one of {sorted(KINDS)}")
    meta = json.loads((corpus.folder / "corpus.json").read_text(encoding="utf-8"))
    if not isinstance(meta.get("apart", False), bool):
        found.append("apart must be true or false")
    for name in ("SOURCE.md", "questions.jsonl"):
        if not (corpus.folder / name).is_file():
            found.append(f"{name} is missing")
    if not corpus.documents.exists():
        found.append(f"documents {corpus.documents} are missing")
    if found:
        return found
    seen: set[str] = set()
    counts: Counter[str] = Counter()
    for row in corpus.questions():
        qid = row.get("id", "?")
        if qid in seen or not str(qid).startswith(f"{corpus.name}-"):
            found.append(f"{qid}: the id is repeated or does not start with {corpus.name}-")
        seen.add(qid)
        if not isinstance(row.get("question"), str) or not row["question"].strip():
            found.append(f"{qid}: no question")
        if row.get("language") not in LANGUAGES:
            found.append(f"{qid}: language {row.get('language')!r}")
        if not isinstance(row.get("answerable"), bool):
            found.append(f"{qid}: answerable must be true or false")
            continue
        if not row["answerable"]:
            counts["absent"] += 1
            continue
        counts["answerable" if row["language"] == corpus.language else "other languages"] += 1
        answers, sources = row.get("answers"), row.get("source")
        if isinstance(sources, str):
            sources = [sources]
        if not answers or not all(isinstance(a, str) and a.strip() for a in answers):
            found.append(f"{qid}: answers must be a list of fragments")
            continue
        if not sources:
            found.append(f"{qid}: no source")
            continue
        texts = []
        for source in sources:
            path = corpus.path_of(source)
            if not path.is_file():
                found.append(f"{qid}: source {source} is not a file")
                continue
            texts.append(document_text(path))
        for answer in answers:
            if texts and not any(normalized(answer) in text for text in texts):
                found.append(f"{qid}: {answer!r} is not in {', '.join(sources)}")
    for what, least in MINIMUMS.items():
        if counts[what] < least:
            found.append(f"{counts[what]} {what} questions, fewer than {least}")
    return found


def check(names: list[str] | None) -> int:
    failed = 0
    for corpus in corpora(names):
        found = problems(corpus)
        rows = corpus.questions() if (corpus.folder / "questions.jsonl").is_file() else []
        print(f"{corpus.name} ({corpus.kind}): {len(rows)} questions, {len(found)} problems")
        for line in found:
            print(f"  {line}")
        failed += bool(found)
    return 1 if failed else 0


def ingest(corpus: Corpus, settings: Settings, retriever: Retriever | None = None) -> None:
    """The corpus's documents in a collection named after it (unchanged files are skipped),
    in the configured index or ``retriever``."""
    files = discover(corpus.documents).files
    ingestor = Ingestor(retriever or get_retriever(settings), get_storage(settings))
    with tqdm(total=len(files), unit="file", desc=f"ingesting {corpus.name}") as bar:
        report = ingestor.ingest(
            files, collection=corpus.name, root=corpus.root, on_file=lambda _: bar.update(1)
        )
    if report.failed:
        raise SystemExit(f"{corpus.name}: could not ingest {report.failed}")


def ask(corpus: Corpus, settings: Settings, quality: Quality) -> list[Outcome]:
    evaluation = Evaluation(
        get_retriever(settings),
        get_storage(settings),
        get_generator(settings),
        get_verifier(settings),
        collection=corpus.name,
        k=settings.retrieval_k,
        quality=quality,
    )
    questions = corpus.evaluation_questions()
    return [
        evaluation.ask(q)
        for q in tqdm(questions, unit="question", desc=f"{corpus.name} ({quality})", leave=False)
    ]


COLUMNS = (
    ("questions", lambda t: str(t.questions)),
    ("first sentence answers", lambda t: number(t.first_answers)),
    ("right source first", lambda t: number(t.source_first)),
    ("citation precision", lambda t: number(t.citation_precision)),
    ("absent refused", lambda t: number(t.absent_refused)),
    ("false refusals", lambda t: number(t.false_refusals)),
    ("median words", lambda t: number(t.median_words, 0)),
    ("first token p50 ms", lambda t: number(t.first_token_p50_ms, 0)),
    ("confidence AUROC", lambda t: number(t.confidence_auroc)),
)


def print_table(quality: str, results: dict[str, list[Outcome]]) -> None:
    print(f"### {quality}\n")
    print("| corpus | " + " | ".join(name for name, _ in COLUMNS) + " |")
    print("|---|" + "---|" * len(COLUMNS))
    rows = [*results.items(), ("overall", [o for group in results.values() for o in group])]
    for name, outcomes in rows:
        figures = totals(outcomes)
        print(f"| {name} | " + " | ".join(cell(figures) for _, cell in COLUMNS) + " |")
    print()


def print_curves(quality: str, results: dict[str, list[Outcome]]) -> None:
    """False refusals / absent questions refused, by confidence threshold, per corpus."""
    print(f"### {quality}: false refusals / absent refused, by threshold\n")
    thresholds = [t for t, _, _ in refusal_curve([])]
    print("| corpus | " + " | ".join(f"{t:.1f}" for t in thresholds) + " |")
    print("|---|" + "---|" * len(thresholds))
    rows = [*results.items(), ("overall", [o for group in results.values() for o in group])]
    for name, outcomes in rows:
        cells = [f"{number(f)} / {number(a)}" for _, f, a in refusal_curve(outcomes)]
        print(f"| {name} | " + " | ".join(cells) + " |")
    print()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpora", nargs="*", help="corpus names (default: all)")
    parser.add_argument("--check", action="store_true", help="only verify the question files")
    parser.add_argument("--quality", choices=["fast", "precise", "both"], default="both")
    parser.add_argument("--data-dir", type=Path, help="keep the indexes here and reuse them")
    parser.add_argument("--report", type=Path, help="write each corpus's Markdown report here")
    args = parser.parse_args()
    if args.check:
        sys.exit(check(args.corpora or None))
    chosen = corpora(args.corpora or None)
    broken = {c.name: problems(c) for c in chosen}
    if any(broken.values()):
        raise SystemExit(f"fix the question files first (--check): {broken}")
    qualities: list[Quality] = ["fast", "precise"] if args.quality == "both" else [args.quality]
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(
            data_dir=args.data_dir or Path(tmp), bootstrap_docs=False, starters_per_source=0
        )
        for corpus in chosen:
            ingest(corpus, settings)
        print(
            f"retrieval {settings.retrieval}, embeddings {settings.embeddings}, generation "
            f"{settings.generation}, k={settings.retrieval_k}; "
            f"{len(chosen)} corpora: {', '.join(f'{c.name} ({c.kind})' for c in chosen)}\n"
        )
        results = {}
        for quality in qualities:
            # Each quality starts as a fresh process would: no embedding remembered yet.
            get_retriever.cache_clear()
            embedder_factory._embedder.cache_clear()
            results[quality] = {c.name: ask(c, settings, quality) for c in chosen}
    for quality, by_corpus in results.items():
        print_table(quality, by_corpus)
    for quality, by_corpus in results.items():
        print_curves(quality, by_corpus)
    if args.report:
        args.report.mkdir(parents=True, exist_ok=True)
        for quality, by_corpus in results.items():
            for name, outcomes in by_corpus.items():
                path = args.report / f"{name}-{quality}.md"
                path.write_text(document(f"{name} ({quality})", outcomes, form="markdown"))
        print(f"reports: {args.report}")


if __name__ == "__main__":
    main()
