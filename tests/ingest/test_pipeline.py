"""Batches: update in place, deletion, and a bad file that fails alone with its reason."""

from __future__ import annotations

from pathlib import Path

from groundwork.ingest.pipeline import Ingestor
from groundwork.retrieval.base import SearchFilter
from groundwork.retrieval.keyword import KeywordIndex
from tests.ingest.conftest import pdf


def folder(tmp_path: Path) -> Path:
    root = tmp_path / "docs"
    (root / "sub").mkdir(parents=True)
    (root / "a.md").write_text("# Alpha\n\nThe alpha document talks of rivers.\n")
    (root / "sub" / "b.txt").write_text("Beta\n\nThe beta document talks of mountains.\n")
    (root / "c.html").write_text("<h1>Gamma</h1><p id='x'>Gamma speaks of lakes.</p>")
    (root / "d.pdf").write_bytes(pdf([["Delta is about deserts."]], title="Delta", author="D"))
    (root / "e.jsonl").write_text('{"text": "Epsilon is about seas.", "title": "Epsilon"}\n')
    return root


def test_given_a_folder_ingested_twice_when_counting_then_no_passage_is_duplicated(
    tmp_path: Path, ingestor: Ingestor, index: KeywordIndex
) -> None:
    root = folder(tmp_path)
    files = sorted(p for p in root.rglob("*") if p.is_file())

    first = ingestor.ingest(files, collection="c", root=root)
    count = index.count("c")
    second = ingestor.ingest(files, collection="c", root=root)

    assert (first.added, first.failed) == (5, {})
    assert count == first.cards >= 5
    assert (second.unchanged, second.added, index.count("c")) == (5, 0, count)


def test_given_a_changed_file_when_reingested_then_it_is_updated_in_place(
    tmp_path: Path, ingestor: Ingestor, index: KeywordIndex
) -> None:
    root = folder(tmp_path)
    ingestor.ingest([root / "a.md"], collection="c", root=root)
    (root / "a.md").write_text("# Alpha\n\nThe alpha document now talks of forests.\n")

    report = ingestor.ingest([root / "a.md"], collection="c", root=root)

    assert report.updated == 1
    hits = index.search("alpha", SearchFilter(collections=["c"]), 5)
    assert [h.card.text for h in hits] == ["The alpha document now talks of forests."]
    assert hits[0].card.url == "a.md#alpha"


def test_given_a_corrupt_file_among_good_ones_when_ingested_then_it_fails_alone_with_a_reason(
    tmp_path: Path, ingestor: Ingestor
) -> None:
    root = folder(tmp_path)
    (root / "broken.pdf").write_bytes(b"%PDF-1.4 this is not a pdf at all")
    (root / "binary.txt").write_bytes(b"\x00\x01\x02 garbage")
    files = sorted(p for p in root.rglob("*") if p.is_file())

    report = ingestor.ingest(files, collection="c", root=root)

    assert report.added == 5
    assert set(report.failed) == {str(root / "broken.pdf"), str(root / "binary.txt")}
    assert "binary content" in report.failed[str(root / "binary.txt")]
    assert report.failed[str(root / "broken.pdf")]


def test_given_ingested_documents_when_deleted_then_their_passages_and_sources_are_gone(
    tmp_path: Path, ingestor: Ingestor, index: KeywordIndex
) -> None:
    root = folder(tmp_path)
    files = sorted(p for p in root.rglob("*") if p.is_file())
    ingestor.ingest(files, collection="c", root=root)
    before = index.count("c")
    (root / "sub" / "b.txt").unlink()

    gone = ingestor.delete(root / "sub" / "b.txt", collection="c")

    assert (gone.deleted, index.count("c")) == (1, before - gone.cards)
    assert ingestor.delete(root, collection="c").deleted == 4
    assert index.count("c") == 0


def test_given_batch_metadata_when_ingested_then_it_replaces_the_documents_own(
    tmp_path: Path, ingestor: Ingestor, index: KeywordIndex
) -> None:
    root = folder(tmp_path)

    ingestor.ingest(
        [root / "sub" / "b.txt"], collection="c", root=root, tags=["geo"],
        metadata={"author": "Founders", "year": "1787", "url": "https://example.org/b"},
    )  # fmt: skip

    card = index.search("beta", SearchFilter(tags=["geo"]), 1)[0].card
    assert (card.author, card.year, card.url, card.tags) == (
        "Founders", "1787", "https://example.org/b", ["geo"])  # fmt: skip
