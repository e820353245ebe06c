"""The chat service's small parts: language detection, exports, the cache key."""

from __future__ import annotations

import re

import pytest

from groundwork.chat.cache_key import cache_key, normalize_question
from groundwork.chat.export import export_answer
from groundwork.chat.language import answer_language, detect_language
from groundwork.domain.citations import Citation
from groundwork.retrieval.base import SearchFilter


def citation(index: int, title: str = "Tides & <Currents>") -> Citation:
    return Citation(
        cited_text="Spring tides happen twice a month.",
        cited_text_heading="Spring tides",
        document_title=title,
        document_index=index,
        document_author=None,
        document_year="2024",
        document_reference=None,
        source_url=f"https://example.org/{index}?a=1&b=2",
    )


@pytest.mark.parametrize(
    ("question", "language"),
    [
        ("How many sacraments are there?", "en"),
        ("Wie viele Sakramente gibt es?", "de"),
        ("Qu'est-ce que la prière ?", "fr"),
        ("Что такое молитва?", "ru"),
        ("¿Qué es la oración?", "es"),
    ],
)
def test_given_a_question_when_detecting_then_its_language(question: str, language: str) -> None:
    assert detect_language(question) == language


def test_given_an_unclear_text_or_an_explicit_code_then_none_or_the_code() -> None:
    assert detect_language("42 + 7") is None  # no language's words
    assert detect_language("   ") is None
    assert answer_language("it", "How many sacraments are there?") == "it"


def test_given_markers_when_exporting_markdown_then_footnotes_for_cited_sources_only() -> None:
    text = "Twice a month [1]. Unknown [7]."

    exported = export_answer(text, [citation(0)], "markdown")

    assert exported.startswith("Twice a month [^1]. Unknown [7].")
    assert exported.endswith(
        "[^1]: Tides &amp; &lt;Currents&gt;, Spring tides, 2024. <https://example.org/0?a=1&b=2>\n"
    )


def test_given_html_export_then_text_escaped_and_footnotes_linked() -> None:
    exported = export_answer("A <b> tag [1].\n\nSecond paragraph.", [citation(0)], "html")

    assert exported.startswith(
        '<p>A &lt;b&gt; tag <sup id="ref-1"><a href="#fn-1">1</a></sup>.</p>'
    )
    assert "<p>Second paragraph.</p>" in exported
    assert "Tides &amp; &lt;Currents&gt;" in exported
    assert 'href="https://example.org/0?a=1&amp;b=2"' in exported


@pytest.mark.parametrize(
    "url",
    ["javascript:alert(document.cookie)", " JavaScript:alert(1)", "java\tscript:alert(1)",
     "data:text/html,<script>alert(1)</script>", "vbscript:msgbox(1)"],
)  # fmt: skip
def test_given_a_script_url_when_exporting_then_it_is_text_never_a_link(url: str) -> None:
    """Given a citation whose source_url runs script, when exported, then no href holds it."""
    hostile = citation(0).model_copy(update={"source_url": url})

    exported = export_answer("Twice a month [1].", [hostile], "html")
    markdown = export_answer("Twice a month [1].", [hostile], "markdown")

    hrefs = re.findall(r'href="([^"]*)"', exported)
    assert hrefs == ["#fn-1", "#ref-1"]
    assert "<script>" not in exported
    assert f"<{url}>" not in markdown


def test_given_markup_in_titles_text_and_links_when_exporting_markdown_then_none_is_markup() -> (
    None
):
    """Given a title, an answer and a link holding HTML, when exported as Markdown (whose
    renderers often pass raw HTML through), then each is written as entities or encoded."""
    hostile = citation(0).model_copy(
        update={
            "document_title": '<img src=x onerror="alert(1)">',
            "source_url": "https://example.org/a><script>alert(1)</script>",
        }
    )

    markdown = export_answer("Tides <b>rise</b> & fall [1].", [hostile], "markdown")

    assert "<img" not in markdown
    assert "<script>" not in markdown
    assert "<b>" not in markdown
    assert markdown.startswith("Tides &lt;b&gt;rise&lt;/b&gt; &amp; fall [^1].")
    assert '&lt;img src=x onerror="alert(1)"&gt;' in markdown
    assert "<https://example.org/a%3E%3Cscript%3Ealert(1)%3C/script%3E>" in markdown


def test_given_relative_and_http_urls_when_exporting_html_then_both_are_links() -> None:
    cited = [
        citation(0).model_copy(update={"source_url": "guides/tides.md#spring"}),
        citation(1).model_copy(update={"source_url": "HTTP://example.org/1"}),
    ]

    exported = export_answer("A [1]. B [2].", cited, "html")

    assert 'href="guides/tides.md#spring"' in exported
    assert 'href="HTTP://example.org/1"' in exported


def key(question: str, fingerprint: str) -> str:
    return cache_key(
        question=question,
        where=SearchFilter(collections=["a"]),
        language="en",
        quality="precise",
        history=[],
        fingerprints={"a": fingerprint},
    )


def test_given_equivalent_questions_then_one_key_and_other_contents_another_key() -> None:
    assert normalize_question(" What  is prayer ?") == "what is prayer"
    assert key("What is prayer?", "1") == key("  what is PRAYER", "1")
    assert key("What is prayer?", "1") != key("What is prayer?", "2")
