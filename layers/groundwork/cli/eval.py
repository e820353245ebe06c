"""``groundwork eval QUESTIONS.jsonl``: ask a collection a file of questions and judge the answers.

Prints the totals and the refusal curve, with a progress bar while it asks; ``--report`` also
writes them with a row per question, as Markdown (``.md``) or HTML (``.html``).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import argparse

REPORT_FORMS = {".md": "markdown", ".markdown": "markdown", ".html": "html", ".htm": "html"}


def register(commands: argparse._SubParsersAction[Any]) -> None:
    parser = commands.add_parser(
        "eval", help="ask a collection a JSONL file of questions and judge the answers"
    )
    parser.add_argument("questions", type=Path, help="JSONL: question, answers, source, answerable")
    parser.add_argument("--collection", default=None, help="default: the default collection")
    parser.add_argument("--quality", choices=("fast", "precise"), default="precise")
    parser.add_argument("--report", type=Path, help="also write the report here (.md or .html)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from groundwork.evaluation.questions import QuestionsError, load_questions
    from groundwork.evaluation.report import curve_table, document, text, totals_table
    from groundwork.evaluation.run import Evaluation
    from groundwork.evaluation.summary import totals
    from groundwork.generation.factory import get_generator
    from groundwork.grounding.factory import get_verifier
    from groundwork.retrieval.factory import get_retriever
    from groundwork.settings import get_settings
    from groundwork.storage.factory import get_storage

    report: Path | None = args.report
    if report is not None and report.suffix.lower() not in REPORT_FORMS:
        print(f"groundwork eval: --report ends in .md or .html: {report.name}", file=sys.stderr)
        return 2
    try:
        questions = load_questions(args.questions)
    except QuestionsError as error:
        print(f"groundwork eval: {error}", file=sys.stderr)
        return 2
    settings = get_settings()
    collection = args.collection or settings.default_collection
    retriever = get_retriever(settings)
    if retriever.count(collection) == 0:
        print(f"groundwork eval: the collection {collection!r} holds no passages", file=sys.stderr)
        return 1
    evaluation = Evaluation(
        retriever,
        get_storage(settings),
        get_generator(),
        get_verifier(),
        collection=collection,
        k=settings.retrieval_k,
        quality=args.quality,
    )
    outcomes = []
    with tqdm(questions, unit="question", desc="asking", file=sys.stderr) as bar:
        for question in bar:
            outcomes.append(evaluation.ask(question))
    print(text(totals_table(totals(outcomes))))
    print()
    print(text(curve_table(outcomes)))
    if report is not None:
        title = f"{args.questions.name} against {collection} ({args.quality})"
        form = REPORT_FORMS[report.suffix.lower()]
        report.write_text(document(title, outcomes, form=form), encoding="utf-8")
        print(f"\nreport: {report}")
    return 0
