"""Answers in the asked language over parallel documents, and honest ``language`` labels.

The set: 36 questions and answers of the Baltimore Catechism (public domain), in English as
printed and in German as translated for this benchmark (``bench/data/catechism_parallel.jsonl``).
Each language's answers are one JSONL file, ingested without a declared language (detected
at ingest), into a collection holding both (``parallel``) and into one per language.

Each question is answered by the answer pipeline (embedded hybrid index, extractive
composer) as the chat endpoints answer it: ``auto`` is the question's detected language.
Per condition it reports:

- ``answered``: answers that cite something (the others say they found nothing);
- ``cites asked``: answers whose citations are all in the asked language (the question's,
  or the explicit ``language``; known from the set, not detected);
- ``cites own``: answers citing the question's own answer in the asked language;
- ``language = text``: ``language`` equals the language detected on the answer's text
  (markers removed); the target is 1.0;
- ``language = sources``: ``language`` equals the known language of the quoted passages
  (the file's, not a detection);
- ``requested = sources``: what labelling the answer with the requested language, as before
  the change, would have scored on the same column.

``no preference`` searches the parallel collection without the language filter: what the
filter adds. Run: ``.venv/bin/python bench/language_parallel.py [--quality fast precise]``.
"""

from __future__ import annotations

import argparse
import json
import re
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from groundwork.answer.service import AnswerOptions, AnswerService
from groundwork.chat.language import answer_language, detect_language
from groundwork.generation.base import Turn
from groundwork.generation.extractive import ExtractiveComposer
from groundwork.ingest.pipeline import Ingestor
from groundwork.retrieval.base import Quality, SearchFilter
from groundwork.retrieval.factory import get_retriever
from groundwork.settings import Settings
from groundwork.storage.factory import get_storage

MARKER = re.compile(r"\[\d+\]")
DATA = Path(__file__).with_name("data") / "catechism_parallel.jsonl"
LANGUAGES = ("en", "de")
KEYS = ("answered", "asked", "own", "text", "sources", "old")


@dataclass(frozen=True)
class Condition:
    name: str
    collection: str
    asked_in: str  # the language of the question
    requested: str | None  # None: auto, the question's
    prefer: bool = True


CONDITIONS = [
    Condition("parallel, English question", "parallel", "en", None),
    Condition("parallel, German question", "parallel", "de", None),
    Condition("parallel, English question, `language: de`", "parallel", "en", "de"),
    Condition("parallel, German question, `language: en`", "parallel", "de", "en"),
    Condition("parallel, English question, no preference", "parallel", "en", None, prefer=False),
    Condition("parallel, German question, no preference", "parallel", "de", None, prefer=False),
    Condition("English only, German question", "en-only", "de", None),
    Condition("German only, English question", "de-only", "en", None),
]


def build(root: Path) -> tuple[Settings, list[dict[str, dict[str, str]]]]:
    rows = [json.loads(line) for line in DATA.read_text().splitlines() if line.strip()]
    for language in LANGUAGES:
        lines = [
            json.dumps(
                {
                    "text": r[language]["answer"],
                    "reference": str(r["q"]),
                    "url": f"{language}.html",
                },
                ensure_ascii=False,
            )
            for r in rows
        ]
        (root / f"{language}.jsonl").write_text("\n".join(lines) + "\n")
    settings = Settings(data_dir=root / "data", bootstrap_docs=False)
    ingestor = Ingestor(get_retriever(settings), get_storage(settings))
    for collection, languages in (
        ("parallel", LANGUAGES),
        ("en-only", ("en",)),
        ("de-only", ("de",)),
    ):
        files = [root / f"{language}.jsonl" for language in languages]
        report = ingestor.ingest(files, collection=collection, root=root)
        assert not report.failed, report.failed
    return settings, rows


def run(settings: Settings, rows: list[dict[str, dict[str, str]]], quality: Quality) -> None:
    retriever = get_retriever(settings)
    service = AnswerService(retriever, ExtractiveComposer(), k=settings.retrieval_k)
    columns = "answered | cites asked | cites own | language = text | language = sources"
    print(f"\n`{quality}`\n\n| condition | n | {columns} | requested = sources | ms/answer |")
    print("|---|" + "---:|" * 8)
    for condition in CONDITIONS:
        counts = dict.fromkeys(KEYS, 0)
        started = time.perf_counter()
        for row in rows:
            question = row[condition.asked_in]["question"]
            requested = answer_language(condition.requested, question)
            where = SearchFilter(collections=[condition.collection])
            options = AnswerOptions(
                language=requested if condition.prefer else None, quality=quality
            )
            answer = service.answer([Turn("user", question)], where, options)
            language = answer.language
            cited = [c.source_url.split(".")[0] for c in answer.citations]
            quoted = set(cited)
            counts["answered"] += bool(cited)
            # The language the answer should be in, as the set knows it (not as detected).
            target = condition.requested or condition.asked_in
            if cited and quoted == {target}:
                counts["asked"] += 1
            if any(
                c.source_url.startswith(f"{target}.") and c.document_reference == str(row["q"])
                for c in answer.citations
            ):
                counts["own"] += 1
            counts["text"] += language == detect_label(answer.text)
            # The language of what was quoted; an answer that quotes nothing is the
            # composer's own English sentence.
            truth = quoted.pop() if len(quoted) == 1 else ("en" if not quoted else None)
            counts["sources"] += language == truth
            counts["old"] += requested == truth
        elapsed = (time.perf_counter() - started) * 1000 / len(rows)
        n = len(rows)
        print(
            f"| {condition.name} | {n} | "
            + " | ".join(f"{counts[key] / n:.2f}" for key in KEYS)
            + f" | {elapsed:.0f} |"
        )


def detect_label(text: str) -> str | None:
    return detect_language(MARKER.sub(" ", text))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--quality", nargs="+", default=["fast", "precise"], choices=["fast", "precise"]
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        settings, rows = build(Path(folder))
        for quality in args.quality:
            run(settings, rows, quality)


if __name__ == "__main__":
    main()
