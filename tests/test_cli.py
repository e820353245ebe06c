"""The groundwork command: ingest with a summary, ask with citations."""

import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from groundwork.cli.main import main
from groundwork.settings import get_settings


@pytest.fixture(autouse=True)
def isolated_data(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    monkeypatch.setenv("GROUNDWORK_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("GROUNDWORK_BOOTSTRAP_DOCS", "false")
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()


def write_docs(folder: Path) -> None:
    folder.mkdir()
    (folder / "tides.md").write_text(
        "---\ntitle: Tide Tables\nauthor: Harbour Office\nyear: 2024\n---\n"
        "# Tides\n\n## Spring tides\n\nSpring tides happen twice a month, at new and full moon.\n"
    )
    (folder / "notes.txt").write_text("Harbour notes\n\nThe harbour opens at six in the morning.\n")
    (folder / "broken.md").write_bytes(b"\xff\xfe\x00 not utf-8 \xff")


def test_given_a_folder_when_ingested_then_good_files_are_indexed_and_the_bad_one_reported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_docs(tmp_path / "docs")

    code = main(["ingest", str(tmp_path / "docs"), "--collection", "harbour"])

    out, err = capsys.readouterr()
    assert code == 1
    assert "3 files: 2 added, 0 updated, 0 unchanged, 1 failed" in out
    assert "broken.md" in err
    assert "binary content in a text file" in err


def test_given_ingested_docs_when_asked_then_the_answer_cites_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_docs(tmp_path / "docs")
    main(["ingest", str(tmp_path / "docs"), "--collection", "harbour"])
    capsys.readouterr()

    code = main(["ask", "When do spring tides happen?", "--collection", "harbour"])

    out = capsys.readouterr().out
    assert code == 0
    assert "Spring tides happen twice a month, at new and full moon. [1]" in out
    assert "[1] Tide Tables · Spring tides · tides.md#spring-tides" in out


def test_given_a_folder_ingested_twice_when_nothing_changed_then_nothing_is_duplicated(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_docs(tmp_path / "docs")
    (tmp_path / "docs" / "broken.md").unlink()
    main(["ingest", str(tmp_path / "docs"), "--collection", "harbour"])

    main(["ingest", str(tmp_path / "docs"), "--collection", "harbour"])

    assert "2 files: 0 added, 0 updated, 2 unchanged, 0 failed" in capsys.readouterr().out


def test_given_a_missing_path_when_ingested_then_it_fails_with_a_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["ingest", str(tmp_path / "nope"), "--collection", "x"]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_given_a_collection_that_does_not_exist_when_asked_then_it_exits_1_with_a_message(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = main(["ask", "When do spring tides happen?", "--collection", "nope"])

    out, err = capsys.readouterr()
    assert code == 1
    assert out == ""
    assert "no collection 'nope'" in err


def test_given_a_reader_that_stops_early_when_printing_then_no_traceback(tmp_path: Path) -> None:
    """``groundwork … | head``: the pipe closes after the first line; the command ends
    quietly instead of raising BrokenPipeError."""
    long = tmp_path / "long.md"
    long.write_text("# Long\n\n" + "\n\n".join(f"Paragraph {n} of many." for n in range(20_000)))
    groundwork = Path(sys.executable).with_name("groundwork")

    done = subprocess.run(
        f"'{groundwork}' ingest '{long}' --text | head -n 1",
        shell=True,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )

    assert done.stdout == "Long\n"
    assert "Traceback" not in done.stderr
    assert "BrokenPipeError" not in done.stderr


def test_given_an_index_built_by_another_embedder_when_asked_then_refused_until_reindexed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    write_docs(tmp_path / "docs")
    monkeypatch.setenv("GROUNDWORK_EMBEDDINGS", "minilm")
    get_settings.cache_clear()
    main(["ingest", str(tmp_path / "docs"), "--collection", "harbour"])
    monkeypatch.setenv("GROUNDWORK_EMBEDDINGS", "e5")
    get_settings.cache_clear()
    capsys.readouterr()

    refused = main(["ask", "When do spring tides happen?", "--collection", "harbour"])
    said = capsys.readouterr().err
    reindexed = main(["reindex"])
    done = capsys.readouterr().out
    answered = main(["ask", "When do spring tides happen?", "--collection", "harbour"])

    assert refused == 2
    assert "built with all-MiniLM-L6-v2" in said
    assert "`groundwork reindex`" in said
    assert reindexed == 0
    assert re.search(r"\d+ passages re-embedded with multilingual-e5-small \(384", done)
    assert answered == 0
    assert "Spring tides happen twice a month" in capsys.readouterr().out
