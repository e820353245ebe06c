"""Sample documents of every format, written by hand so the tests need no fixture files."""

from __future__ import annotations

from pathlib import Path

import pytest

from groundwork.ingest.pipeline import Ingestor
from groundwork.retrieval.keyword import KeywordIndex
from groundwork.storage.sqlite import SQLiteStorage
from tests.conftest import SHARED

CORPORA = SHARED / "data" / "corpora"


def pdf(pages: list[list[str]], *, title: str, author: str, created: str = "20210301") -> bytes:
    """A small valid PDF: one Helvetica text line per string, pages in order."""
    objects: list[bytes] = []
    page_ids = [3 + 2 * i for i in range(len(pages))]
    font_id = 3 + 2 * len(pages)
    info_id = font_id + 1
    objects.append(b"<< /Type /Catalog /Pages 2 0 R >>")
    kids = " ".join(f"{i} 0 R" for i in page_ids)
    objects.append(f"<< /Type /Pages /Kids [{kids}] /Count {len(pages)} >>".encode())
    for page_id, lines in zip(page_ids, pages, strict=True):
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {page_id + 1} 0 R "
            f"/Resources << /Font << /F1 {font_id} 0 R >> >> >>".encode()
        )
        text = " ".join(f"({line}) Tj 0 -16 Td" for line in lines)
        stream = f"BT /F1 11 Tf 72 720 Td {text} ET".encode()
        objects.append(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    objects.append(
        f"<< /Title ({title}) /Author ({author}) /CreationDate (D:{created}) >>".encode()
    )
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R /Info %d 0 R >>\n" % (len(objects) + 1, info_id)
    out += b"startxref\n%d\n%%%%EOF\n" % xref
    return bytes(out)


@pytest.fixture
def index(tmp_path: Path) -> KeywordIndex:
    return KeywordIndex(tmp_path / "index.sqlite3")


@pytest.fixture
def storage(tmp_path: Path) -> SQLiteStorage:
    return SQLiteStorage(tmp_path / "state.sqlite3")


@pytest.fixture
def ingestor(index: KeywordIndex, storage: SQLiteStorage) -> Ingestor:
    return Ingestor(index, storage)


def needs(path: Path) -> pytest.MarkDecorator:
    return pytest.mark.skipif(not path.exists(), reason=f"{path} is not here")
