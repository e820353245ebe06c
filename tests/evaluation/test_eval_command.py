"""``groundwork eval``: a file of questions against a collection, judged, with a report."""

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from groundwork.cli.main import main
from groundwork.evaluation.judge import normalized
from groundwork.evaluation.questions import load_questions
from groundwork.settings import get_settings
from tests.conftest import REPO


@pytest.fixture(autouse=True)
def isolated_data(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    monkeypatch.setenv("GROUNDWORK_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("GROUNDWORK_BOOTSTRAP_DOCS", "false")
    monkeypatch.setenv("GROUNDWORK_STARTERS_PER_SOURCE", "0")
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()


@pytest.fixture
def harbour(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """A collection of two documents, and a questions file about it."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "tides.md").write_text(
        "# Tides\n\n## Spring tides\n\nSpring tides happen twice a month, at new and full moon.\n"
    )
    (docs / "notes.txt").write_text("Harbour notes\n\nThe harbour opens at six in the morning.\n")
    assert main(["ingest", str(docs), "--collection", "harbour"]) == 0
    questions = [
        {
            "id": "tides",
            "question": "How often are there spring tides?",
            "answers": ["twice a month"],
            "source": "tides.md",
        },
        {
            "id": "opening",
            "question": "When can boats get into the harbour?",
            "answers": ["at dawn"],
            "source": "notes.txt",
        },
        {"id": "fees", "question": "Is <b>mooring</b> free?", "answerable": False},
    ]
    path = tmp_path / "questions.jsonl"
    path.write_text("".join(json.dumps(q) + "\n" for q in questions))
    capsys.readouterr()
    return path


def value(out: str, figure: str) -> str:
    """The value column of the totals table's row for ``figure``."""
    row = next(line for line in out.splitlines() if line.startswith(figure + "  "))
    return row[len(figure) :].strip()


def test_given_questions_when_evaluated_then_the_totals_judge_each_answer(
    harbour: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["eval", str(harbour), "--collection", "harbour", "--quality", "fast"])

    out, err = capsys.readouterr()
    assert code == 0
    assert value(out, "questions") == "3 (2 answerable, 1 not)"
    # The tides answer holds its fragment; the harbour's says "at six", not the "at dawn" expected.
    assert value(out, "the first sentence answers") == "0.50"
    assert value(out, "the right source cited first") == "1.00"
    assert "threshold" in out  # the refusal curve
    assert "asking" in err  # the progress bar


def test_given_a_report_path_when_evaluated_then_html_has_a_row_per_question_escaped(
    harbour: Path, tmp_path: Path
) -> None:
    report = tmp_path / "report.html"

    assert main(["eval", str(harbour), "--collection", "harbour", "--report", str(report)]) == 0

    page = report.read_text()
    assert page.count("<tr>") == 3 + 3 + 9 + 7  # header rows, questions, totals, curve
    assert "Is &lt;b&gt;mooring&lt;/b&gt; free?" in page
    assert "<b>mooring" not in page
    assert "Spring tides happen twice a month, at new and full moon." in page


def test_given_a_markdown_report_when_evaluated_then_it_has_the_three_sections(
    harbour: Path, tmp_path: Path
) -> None:
    report = tmp_path / "report.md"

    assert main(["eval", str(harbour), "--collection", "harbour", "--report", str(report)]) == 0

    text = report.read_text()
    for heading in ("## Totals", "## Refusals by confidence threshold", "## Questions"):
        assert heading in text
    assert "| tides | How often are there spring tides? | twice a month |" in text


def test_given_a_bad_questions_file_when_evaluated_then_it_exits_2_naming_the_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "q.jsonl"
    path.write_text('{"question": "ok?"}\n{"answers": ["no question"]}\n')

    assert main(["eval", str(path)]) == 2
    assert "q.jsonl:2: question" in capsys.readouterr().err


def test_given_an_empty_collection_when_evaluated_then_it_exits_1(
    harbour: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["eval", str(harbour), "--collection", "nothing-here"]) == 1
    assert "holds no passages" in capsys.readouterr().err


def test_given_the_docs_example_when_run_as_documented_then_it_judges_all_six(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # docs/evaluation.md: ingest the README, then eval docs/examples/eval-questions.jsonl.
    readme = REPO / "README.md"
    example = REPO / "docs" / "examples" / "eval-questions.jsonl"
    assert main(["ingest", str(readme), "--collection", "readme"]) == 0
    capsys.readouterr()

    code = main(["eval", str(example), "--collection", "readme", "--quality", "fast"])

    out = capsys.readouterr().out
    assert code == 0
    assert value(out, "questions") == "6 (4 answerable, 2 not)"
    text = normalized(readme.read_text())
    for question in load_questions(example):
        assert all(normalized(a) in text for a in question.answers), question.id
