"""The answer in a document format, its ``[n]`` markers turned into footnotes.

A footnote names the source (title, section, author, year, page) and quotes the sentence of
it that supports the answer (``supporting_text``), then links to it.

``markdown``: ``[^n]`` references and a footnote list (CommonMark + GFM footnotes); ``&``,
``<`` and ``>`` are written as entities, so no document text becomes markup in a renderer
that passes raw HTML through.
``html``: ``<sup>`` links to an ordered list of sources; all text is escaped.

A source is a link only when its URL is http(s) or relative (``domain/links.py``); any other
(``javascript:``…) is written as text.
"""

from __future__ import annotations

import html
import re
from typing import TYPE_CHECKING

from groundwork.domain.links import safe_link

if TYPE_CHECKING:
    from groundwork.chat.request import ExportFormat
    from groundwork.domain.citations import Citation

_MARKER = re.compile(r"\[(\d+)\]")


def export_answer(text: str, citations: list[Citation], fmt: ExportFormat) -> str:
    by_number = {c.document_index + 1: c for c in citations}
    if fmt == "markdown":
        return _markdown(text, by_number)
    return _html(text, by_number)


def _label(citation: Citation) -> str:
    parts = [citation.document_title or citation.source_url]
    if citation.cited_text_heading:
        parts.append(citation.cited_text_heading)
    if citation.document_author:
        parts.append(citation.document_author)
    if citation.document_year:
        parts.append(citation.document_year)
    location = citation.source_location
    if location and location.page and citation.document_reference != f"p. {location.page}":
        last = location.page_end or location.page
        parts.append(
            f"p. {location.page}" if last == location.page else f"pp. {location.page}–{last}"
        )
    return ", ".join(part.rstrip(" .?!:;") for part in parts)


def _supporting(citation: Citation) -> str:
    """The supporting sentences, on one line."""
    return " ".join((citation.supporting_text or "").split())


def _markdown(text: str, by_number: dict[int, Citation]) -> str:
    body = _MARKER.sub(
        lambda m: f"[^{m.group(1)}]" if int(m.group(1)) in by_number else m.group(0),
        _markdown_text(text),
    )
    notes = [
        " ".join(
            part
            for part in (
                f"[^{n}]: {_markdown_text(_label(c))}.",
                _markdown_text(f"“{_supporting(c)}”") if _supporting(c) else "",
                _markdown_link(c.source_url),
            )
            if part
        )
        for n, c in sorted(by_number.items())
    ]
    return body if not notes else body.rstrip() + "\n\n" + "\n".join(notes) + "\n"


def _html(text: str, by_number: dict[int, Citation]) -> str:
    def marker(match: re.Match[str]) -> str:
        n = int(match.group(1))
        if n not in by_number:
            return match.group(0)
        return f'<sup id="ref-{n}"><a href="#fn-{n}">{n}</a></sup>'

    paragraphs = [p for p in re.split(r"\n\s*\n", html.escape(text, quote=False)) if p.strip()]
    body = "".join(f"<p>{_MARKER.sub(marker, p.strip())}</p>" for p in paragraphs)
    if not by_number:
        return body
    items = "".join(
        f'<li id="fn-{n}">{html.escape(_label(c))}. '
        + (f"<q>{html.escape(_supporting(c))}</q> " if _supporting(c) else "")
        + f'{_html_link(c.source_url)} <a href="#ref-{n}">↩</a></li>'
        for n, c in sorted(by_number.items())
    )
    return f'{body}<ol class="footnotes">{items}</ol>'


def _html_link(url: str) -> str:
    shown = html.escape(url)
    link = safe_link(url)
    return f'<a href="{html.escape(link)}">{shown}</a>' if link else f"<span>{shown}</span>"


def _markdown_text(text: str) -> str:
    return html.escape(text, quote=False)


def _markdown_link(url: str) -> str:
    link = safe_link(url)
    if link:  # an autolink ends at its first ">" and holds no space: those are escaped
        return "<" + link.replace("<", "%3C").replace(">", "%3E").replace(" ", "%20") + ">"
    return f"`{url.replace('`', '')}`"
