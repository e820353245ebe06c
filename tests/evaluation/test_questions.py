"""The questions file of an evaluation: what it accepts and how it says what is wrong."""

from pathlib import Path

import pytest

from groundwork.evaluation.questions import QuestionsError, load_questions


def write(tmp_path: Path, *lines: str) -> Path:
    path = tmp_path / "questions.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_given_minimal_lines_when_loaded_then_defaults_fill_in(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        '{"question": "When does the harbour open?", "answer": "at six", "source": "notes.txt"}',
        "",
        '{"id": "absent-1", "question": "Who owns the harbour?", "answerable": false}',
    )

    first, second = load_questions(path)

    assert (first.id, first.answers, first.source, first.answerable) == (
        "line-1",
        ("at six",),
        ("notes.txt",),
        True,
    )
    assert (second.id, second.answerable, second.answers) == ("absent-1", False, ())


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("not json", "questions.jsonl:2: not JSON"),
        ("[1, 2]", "questions.jsonl:2: not a JSON object"),
        ('{"question": "   "}', "questions.jsonl:2: question:"),
        ('{"question": "Why?", "answerable": "maybe"}', "questions.jsonl:2: answerable:"),
        ('{"id": "a", "question": "Again?"}', "questions.jsonl:2: id 'a' is repeated"),
    ],
)
def test_given_a_bad_line_when_loaded_then_the_error_names_it(
    tmp_path: Path, line: str, reason: str
) -> None:
    path = write(tmp_path, '{"id": "a", "question": "Fine?"}', line)

    with pytest.raises(QuestionsError, match=reason):
        load_questions(path)


def test_given_an_empty_file_when_loaded_then_it_is_refused(tmp_path: Path) -> None:
    with pytest.raises(QuestionsError, match="no questions"):
        load_questions(write(tmp_path, ""))
