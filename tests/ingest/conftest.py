"""Sample documents of every format, written by hand so the tests need no fixture files."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from groundwork.ingest.pipeline import Ingestor
from groundwork.retrieval.factory import get_retriever
from groundwork.retrieval.keyword import KeywordIndex
from groundwork.settings import get_settings
from groundwork.storage.factory import get_storage
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
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv("GROUNDWORK_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("GROUNDWORK_RETRIEVAL", "keyword")
    for cached in (get_settings, get_retriever, get_storage):
        cached.cache_clear()
    yield tmp_path / "data"
    for cached in (get_settings, get_retriever, get_storage):
        cached.cache_clear()


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


W_NS = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"


def _zip(parts: dict[str, str]) -> bytes:
    import io
    import zipfile

    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as package:
        for name, text in parts.items():
            package.writestr(name, text)
    return out.getvalue()


def _core(title: str | None, author: str | None, created: str | None) -> str:
    fields = "".join(
        f"<{tag}>{value}</{tag}>"
        for tag, value in (
            ("dc:title", title),
            ("dc:creator", author),
            ('dcterms:created xsi:type="dcterms:W3CDTF"', created),
        )
        if value
    ).replace('</dcterms:created xsi:type="dcterms:W3CDTF">', "</dcterms:created>")
    return (
        '<?xml version="1.0" encoding="UTF-8"?><cp:coreProperties '
        'xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" '
        'xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/" '
        f'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">{fields}</cp:coreProperties>'
    )


def docx(
    paragraphs: list[tuple[str | None, str]],
    *,
    title: str | None = None,
    author: str | None = None,
    created: str | None = None,
) -> bytes:
    """A minimal Word document, written as OOXML by hand: ``(style id, text)`` paragraphs, the
    styles "Heading1"–"Heading3" (named "heading N"), "Title" and "Code", and core properties.
    A text's line breaks become ``w:br``."""
    from xml.sax.saxutils import escape

    def paragraph(style: str | None, text: str) -> str:
        properties = f'<w:pPr><w:pStyle w:val="{style}"/></w:pPr>' if style else ""
        runs = "<w:br/>".join(
            f'<w:t xml:space="preserve">{escape(line)}</w:t>' for line in text.split("\n")
        )
        return f"<w:p>{properties}<w:r>{runs}</w:r></w:p>"

    body = "".join(paragraph(style, text) for style, text in paragraphs)
    styles = "".join(
        f'<w:style w:type="paragraph" w:styleId="{sid}"><w:name w:val="{name}"/></w:style>'
        for sid, name in (
            ("Heading1", "heading 1"),
            ("Heading2", "heading 2"),
            ("Heading3", "heading 3"),
            ("Title", "Title"),
            ("Code", "Code"),
        )
    )
    return _zip(
        {
            "[Content_Types].xml": (
                '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/'
                '2006/content-types"><Override PartName="/word/document.xml" ContentType="'
                "application/vnd.openxmlformats-officedocument.wordprocessingml.document.main"
                '+xml"/></Types>'
            ),
            "word/document.xml": (
                f'<w:document xmlns:w="{W_NS}"><w:body>{body}</w:body></w:document>'
            ),
            "word/styles.xml": f'<w:styles xmlns:w="{W_NS}">{styles}</w:styles>',
            "docProps/core.xml": _core(title, author, created),
        }
    )


def pptx(slides: list[tuple[str, list[str]]], *, title: str | None = None) -> bytes:
    """A minimal PowerPoint deck: each slide a title placeholder and one text box."""
    from xml.sax.saxutils import escape

    p_ns = "http://schemas.openxmlformats.org/presentationml/2006/main"
    a_ns = "http://schemas.openxmlformats.org/drawingml/2006/main"
    r_ns = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
    parts: dict[str, str] = {"docProps/core.xml": _core(title, None, None)}
    ids, rels = [], []
    for n, (heading, lines) in enumerate(slides, start=1):
        paragraphs = "".join(f"<a:p><a:r><a:t>{escape(line)}</a:t></a:r></a:p>" for line in lines)
        parts[f"ppt/slides/slide{n}.xml"] = (
            f'<p:sld xmlns:p="{p_ns}" xmlns:a="{a_ns}"><p:cSld><p:spTree>'
            '<p:sp><p:nvSpPr><p:cNvPr id="2" name="Title"/><p:cNvSpPr/><p:nvPr>'
            '<p:ph type="title"/></p:nvPr></p:nvSpPr><p:txBody><a:p><a:r><a:t>'
            f"{escape(heading)}</a:t></a:r></a:p></p:txBody></p:sp>"
            '<p:sp><p:nvSpPr><p:cNvPr id="3" name="Body"/><p:cNvSpPr/><p:nvPr/></p:nvSpPr>'
            f"<p:txBody>{paragraphs}</p:txBody></p:sp></p:spTree></p:cSld></p:sld>"
        )
        ids.append(f'<p:sldId id="{255 + n}" r:id="rId{n}"/>')
        rels.append(f'<Relationship Id="rId{n}" Type="slide" Target="slides/slide{n}.xml"/>')
    parts["ppt/presentation.xml"] = (
        f'<p:presentation xmlns:p="{p_ns}" xmlns:r="{r_ns}"><p:sldIdLst>{"".join(ids)}'
        "</p:sldIdLst></p:presentation>"
    )
    parts["ppt/_rels/presentation.xml.rels"] = (
        '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
        f"{''.join(rels)}</Relationships>"
    )
    return _zip(parts)


def epub(chapters: list[str], *, title: str, author: str, date: str) -> bytes:
    """A minimal EPUB: its container, a package document and one XHTML file per chapter."""
    items = "".join(
        f'<item id="c{n}" href="text/c{n}.xhtml" media-type="application/xhtml+xml"/>'
        for n in range(len(chapters))
    )
    spine = "".join(f'<itemref idref="c{n}"/>' for n in range(len(chapters)))
    parts = {
        "mimetype": "application/epub+zip",
        "META-INF/container.xml": (
            '<container xmlns="urn:oasis:names:tc:opendocument:xmlns:container" version="1.0">'
            '<rootfiles><rootfile full-path="OEBPS/content.opf" '
            'media-type="application/oebps-package+xml"/></rootfiles></container>'
        ),
        "OEBPS/content.opf": (
            '<package xmlns="http://www.idpf.org/2007/opf" version="3.0"><metadata '
            f'xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>{title}</dc:title>'
            f"<dc:creator>{author}</dc:creator><dc:date>{date}</dc:date>"
            f"<dc:language>en</dc:language></metadata><manifest>{items}</manifest>"
            f"<spine>{spine}</spine></package>"
        ),
    }
    for n, body in enumerate(chapters):
        parts[f"OEBPS/text/c{n}.xhtml"] = (
            f'<html xmlns="http://www.w3.org/1999/xhtml"><body>{body}</body></html>'
        )
    return _zip(parts)
