"""An evaluation as tables: the totals, the refusal curve and a row per question, for the
terminal, Markdown or HTML (every cell escaped)."""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

from groundwork.evaluation.summary import refusal_curve, totals

if TYPE_CHECKING:
    from collections.abc import Sequence

    from groundwork.evaluation.run import Outcome
    from groundwork.evaluation.summary import Totals

Table = tuple[list[str], list[list[str]]]


def number(value: float | None, digits: int = 2) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def verdict(value: bool | None) -> str:
    return "–" if value is None else ("yes" if value else "no")


def totals_table(figures: Totals) -> Table:
    asked = f"{figures.questions} ({figures.answerable} answerable, {figures.absent} not)"
    rows = [
        ["questions", asked],
        ["the first sentence answers", number(figures.first_answers)],
        ["the right source cited first", number(figures.source_first)],
        ["citation precision", number(figures.citation_precision)],
        ["not answerable: refused", number(figures.absent_refused)],
        ["false refusals", number(figures.false_refusals)],
        ["median words (answered)", number(figures.median_words, 0)],
        ["time to first token p50 / p95 (ms)", _pair(figures)],
        ["confidence AUROC (answered right vs not)", number(figures.confidence_auroc)],
    ]
    return ["figure", "value"], rows


def curve_table(outcomes: Sequence[Outcome]) -> Table:
    rows = [
        [f"{t:.1f}", number(false), number(absent)] for t, false, absent in refusal_curve(outcomes)
    ]
    return ["threshold", "false refusals", "not answerable: refused"], rows


def question_table(outcomes: Sequence[Outcome]) -> Table:
    header = ["id", "question", "expected", "first sentence", "cited first", "answers", "source"]
    header += ["refused", "confidence"]
    rows = []
    for o in outcomes:
        q = o.question
        expected = " | ".join(q.answers) if q.answerable else "(not answerable)"
        rows.append(
            [
                q.id,
                q.question,
                expected,
                "" if o.refused else o.first_sentence,
                o.cited[0] if o.cited else "",
                verdict(o.answers),
                verdict(o.source_first),
                verdict(o.refused),
                number(o.confidence),
            ]
        )
    return header, rows


def text(table: Table) -> str:
    header, rows = table
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(header, widths, strict=True))]
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) for r in rows]
    return "\n".join(line.rstrip() for line in lines)


def markdown(table: Table) -> str:
    header, rows = table

    def row(cells: list[str]) -> str:
        escaped = (" ".join(c.split()).replace("\\", "\\\\").replace("|", "\\|") for c in cells)
        return "| " + " | ".join(escaped) + " |"

    return "\n".join([row(header), "|" + "---|" * len(header), *(row(r) for r in rows)])


def html_table(table: Table) -> str:
    header, rows = table
    head = "".join(f"<th>{html.escape(c)}</th>" for c in header)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in r) + "</tr>" for r in rows
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def document(title: str, outcomes: Sequence[Outcome], *, form: str) -> str:
    """The whole report: ``form`` is ``markdown`` or ``html``."""
    sections = [
        ("Totals", totals_table(totals(outcomes))),
        ("Refusals by confidence threshold", curve_table(outcomes)),
        ("Questions", question_table(outcomes)),
    ]
    if form == "markdown":
        parts = [f"# {title}"] + [f"## {name}\n\n{markdown(t)}" for name, t in sections]
        return "\n\n".join(parts) + "\n"
    style = (
        "body{font-family:sans-serif;margin:2em}table{border-collapse:collapse;margin-bottom:2em}"
        "td,th{border:1px solid #ccc;padding:4px 8px;text-align:left;vertical-align:top}"
    )
    body = "".join(f"<h2>{html.escape(n)}</h2>{html_table(t)}" for n, t in sections)
    return (
        f'<!doctype html><html lang="en"><head><meta charset="utf-8">'
        f"<title>{html.escape(title)}</title><style>{style}</style></head>"
        f"<body><h1>{html.escape(title)}</h1>{body}</body></html>\n"
    )


def _pair(figures: Totals) -> str:
    return f"{number(figures.first_token_p50_ms, 0)} / {number(figures.first_token_p95_ms, 0)}"
