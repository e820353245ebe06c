"""Language identification on short questions: how often each language is told apart.

Questions: one file per language (``<code>.txt``, one question a line) of Tatoeba sentences
(tatoeba.org, CC-BY 2.0 FR) that end in a question mark: those of the random samples that
Tatoeba's own language detector was trained and tested on (github.com/Tatoeba/tatodet,
``data/<lang>_1000.csv`` and ``data/testset.csv``), and, for Portuguese and Spanish, which
have fewer questions there, those of the first lines of the Tatoeba Challenge's English
test sets (github.com/Helsinki-NLP/Tatoeba-Challenge, ``data/test/eng-por/test.txt`` and
``eng-spa``). Nothing was tuned on them: the detector keeps the rule it had (the languages of
``groundwork.chat.language.LANGUAGES``, a floor of 0.5 of their probability).

    .venv/bin/python -m bench.language_id [--questions DIR]

``--questions`` defaults to ``bench/data/langid-questions`` (with its source).

With py3langid installed (``pip install py3langid``), the detector used before is measured
beside it, under the same rule.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from groundwork.chat.language import LANGUAGES, detect_language

QUESTIONS = Path(__file__).resolve().parent / "data" / "langid-questions"


def py3langid() -> Callable[[str], str | None] | None:
    try:
        from py3langid.langid import MODEL_FILE, LanguageIdentifier
    except ImportError:
        return None
    identifier = LanguageIdentifier.from_pickled_model(MODEL_FILE, norm_probs=True)
    identifier.set_languages(LANGUAGES)

    def detect(text: str) -> str | None:
        code, probability = identifier.classify(text)
        return str(code) if float(probability) >= 0.5 else None

    return detect


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=Path, default=QUESTIONS)
    args = parser.parse_args()
    files = sorted(args.questions.glob("*.txt"))
    if not files:
        raise SystemExit(f"{args.questions}: no <language>.txt files of questions")
    detectors = {"fastText lid.176.ftz (shipped)": detect_language}
    before = py3langid()
    if before:
        detectors["py3langid (before)"] = before
    print("| language | questions | median words | " + " | ".join(detectors) + " |")
    print("|---|---|---|" + "---|" * len(detectors))
    times: dict[str, list[float]] = {name: [] for name in detectors}
    for file in files:
        code = file.stem
        questions = [line.strip() for line in file.read_text().splitlines() if line.strip()]
        cells = []
        for name, detect in detectors.items():
            started = time.perf_counter()
            found = Counter(detect(q) for q in questions)
            times[name].append((time.perf_counter() - started) / len(questions))
            wrong = ", ".join(f"{c or 'none'} {n}" for c, n in found.most_common() if c != code)
            cells.append(f"**{found[code] / len(questions):.3f}** ({wrong or 'all right'})")
        words = statistics.median(len(q.split()) for q in questions)
        print(f"| {code} | {len(questions)} | {words:.0f} | " + " | ".join(cells) + " |")
    print()
    for name, spent in times.items():
        print(f"{name}: {statistics.fmean(spent) * 1e6:.0f} µs per question")


if __name__ == "__main__":
    main()
