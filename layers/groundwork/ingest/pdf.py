"""PDF with pypdf (pure Python): one passage per paragraph group, cited by page.

A passage's URL opens its page (``file.pdf#page=3``, the PDF open parameter every viewer
reads); its reference is its own paragraph number when it has one, else its page ("p. 3").
Passages are cut at page breaks, so each lies on one page (``page`` and ``page_end`` are the
same); the extracted text separates pages with a form feed.
"""

from __future__ import annotations

import io
import re

from groundwork.ingest.document import Document, TextBuilder, pack

PASSAGE_CHARS = 900
_LINE_END = re.compile(r"[.?!:]['\"”’)]?$")


def parse_pdf(raw: bytes) -> Document:
    from pypdf import PdfReader

    reader = PdfReader(io.BytesIO(raw))
    info = reader.metadata
    document = Document(
        title=_clean(info.title) if info else None,
        author=_clean(info.author) if info else None,
        year=_year(str(info.get("/CreationDate", ""))) if info else None,
    )
    built = TextBuilder()
    for number, page in enumerate(reader.pages, start=1):
        if number > 1:
            built.new_page()
        for piece, reference in pack(paragraphs(page.extract_text() or ""), PASSAGE_CHARS):
            document.passages.append(
                built.passage(
                    piece, anchor=f"page={number}", reference=reference or f"p. {number}",
                    paged=True,
                )
            )  # fmt: skip
    if document.title is None and document.passages:
        first = document.passages[0].text.split("\n")[0]
        document.title = first if len(first) <= 120 else None
    document.text = built.text
    return document


def paragraphs(text: str) -> list[str]:
    """Paragraphs of a page's text: blank lines where the PDF has them, else line ends that
    close a sentence (text extraction often drops the blank lines)."""
    if re.search(r"\n\s*\n", text):
        blocks = re.split(r"\n\s*\n", text)
    else:
        blocks, current = [], []
        for line in text.splitlines():
            current.append(line)
            if _LINE_END.search(line.strip()):
                blocks.append("\n".join(current))
                current = []
        blocks.append("\n".join(current))
    return [" ".join(b.split()) for b in blocks if b.strip()]


def _year(date: str) -> str | None:
    """The year of a PDF date ("D:20210301120000Z")."""
    match = re.match(r"(?:D:)?(\d{4})", date.strip())
    return match.group(1) if match else None


def _clean(value: object) -> str | None:
    text = " ".join(str(value).split()) if value else ""
    return text or None
