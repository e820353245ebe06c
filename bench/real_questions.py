"""The real-question benchmark: questions people ask, over public corpora of different kinds.

Each corpus under ``bench/data/real`` (see its README) is ingested into a collection of its own
and asked its questions. ``--check`` only verifies the question files: their fields, that every
expected fragment is in its source document as ingested, and the counts per corpus.

    .venv/bin/python -m bench.real_questions --check [CORPUS ...]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from groundwork.ingest.pipeline import parse

ROOT = Path(__file__).resolve().parent / "data" / "real"
SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
KINDS = frozenset({"software", "law", "religion", "policy", "science", "history"})
LANGUAGES = frozenset({"en", "it", "pt", "es", "de", "fr"})
#: At least this many of each per corpus: answerable in the documents' language, absent, other
#: languages.
MINIMUMS = {"answerable": 40, "absent": 10, "other languages": 10}

_MARKUP = re.compile(r"[`*]")


def normalized(text: str) -> str:
    """Case, whitespace, typographic quotes and inline markup (backticks, emphasis) aside."""
    text = text.replace("’", "'").replace("‘", "'").replace("“", '"').replace("”", '"')
    return " ".join(_MARKUP.sub("", text).casefold().split())


@dataclass(frozen=True)
class Corpus:
    name: str
    kind: str
    language: str
    folder: Path  # the corpus folder under bench/data/real
    documents: Path  # where its documents are (its docs/, or a folder of ../shared/data)

    def path_of(self, source: str) -> Path:
        """A question's ``source`` (relative to the corpus folder) as a file."""
        if source.startswith("shared:"):
            return SHARED / source.removeprefix("shared:")
        return self.folder / source

    def questions(self) -> list[dict[str, Any]]:
        lines = (self.folder / "questions.jsonl").read_text(encoding="utf-8").splitlines()
        return [json.loads(line) for line in lines if line.strip()]


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
        found.append(Corpus(data["name"], data["kind"], data["language"], meta.parent, documents))
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpora", nargs="*", help="corpus names (default: all)")
    parser.add_argument("--check", action="store_true", help="only verify the question files")
    args = parser.parse_args()
    if args.check:
        sys.exit(check(args.corpora or None))
    parser.error("only --check is implemented so far")


if __name__ == "__main__":
    main()
