"""``groundwork ingest``: a progress bar, a summary, failures named, ``--delete``."""

from __future__ import annotations

from pathlib import Path

import pytest

from groundwork.cli.main import main
from groundwork.retrieval.base import SearchFilter
from groundwork.retrieval.factory import get_retriever
from groundwork.settings import get_settings


def test_given_a_folder_with_a_bad_file_when_ingested_then_the_summary_names_it(
    tmp_path: Path, data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "good.md").write_text("# Good\n\nA good document.\n")
    (docs / "bad.pdf").write_bytes(b"not a pdf")

    code = main(["ingest", str(docs), "--collection", "h", "--author", "Team"])

    out = capsys.readouterr()
    assert code == 1
    assert "2 files: 1 added, 0 updated, 0 unchanged, 1 failed; 1 passages indexed" in out.out
    assert "bad.pdf" in out.err
    assert "ingesting" in out.err  # the progress bar
    assert get_retriever().count("h") == 1


def test_given_an_ingested_file_when_deleted_then_the_collection_is_empty(
    tmp_path: Path, data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = tmp_path / "note.txt"
    doc.write_text("Note\n\nSomething worth keeping.\n")
    assert main(["ingest", str(doc), "--collection", "n"]) == 0

    code = main(["ingest", str(doc), "--collection", "n", "--delete"])

    assert code == 0
    assert "1 documents deleted" in capsys.readouterr().out
    assert get_retriever().count("n") == 0


def test_given_a_size_cap_a_looping_link_and_a_long_file_when_ingested_then_all_are_shown(
    tmp_path: Path,
    data_dir: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Given GROUNDWORK_INGEST_MAX_FILE_BYTES, a link looping back to the folder and a file of
    many passages, when ingested, then the big file is refused, the link is named as a loop,
    the long file shows a bar of its passages, and the exit status is 1."""
    monkeypatch.setenv("GROUNDWORK_INGEST_MAX_FILE_BYTES", "50000")
    get_settings.cache_clear()
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "huge.txt").write_text("Tides. " * 10_000)
    (docs / "long.txt").write_text("\n\n".join(f"{n}. Tide {n} turns." for n in range(600)))
    (docs / "back").symlink_to(docs)

    code = main(["ingest", str(docs), "--collection", "h"])

    out = capsys.readouterr()
    assert code == 1
    assert "2 files: 1 added, 0 updated, 0 unchanged, 1 failed; 600 passages indexed" in out.out
    assert "huge.txt: ValueError: bigger than 50,000 bytes" in out.err
    assert f"skipped: {docs / 'back'}: a symlink loop" in out.err
    assert "long.txt:   0%|          | 0/600" in out.err  # the bar of its passages


def test_given_language_on_the_command_line_when_ingested_then_every_card_has_it(
    tmp_path: Path, data_dir: Path
) -> None:
    doc = tmp_path / "note.md"
    doc.write_text("# Note\n\nThis note is written in English, whatever the flag says.\n")

    assert main(["ingest", str(doc), "--collection", "n", "--language", "German"]) == 0

    hits = get_retriever().search("note", SearchFilter(collections=["n"], language="de"), 5)
    assert [hit.card.language for hit in hits] == ["de"]
