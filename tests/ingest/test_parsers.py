"""Each format keeps what a citation names: title, author, year, heading, reference, anchor."""

from __future__ import annotations

import pytest

from groundwork.ingest.html import parse_html
from groundwork.ingest.jsonl import parse_jsonl
from groundwork.ingest.markdown import parse_markdown
from groundwork.ingest.pdf import parse_pdf
from groundwork.ingest.plaintext import parse_text
from tests.ingest.conftest import pdf

HTML = """<!DOCTYPE html><html lang="en"><head>
<title>Collected Letters, by Jane Roe</title>
<meta name="date" content="1901-05-02">
<link rel="canonical" href="https://example.org/letters">
<style>p { color: red }</style></head><body>
<h1>Collected Letters</h1>
<p><a href="#l1">Letter No. 1</a></p>
<a name="l1"></a>
<h2>Letter No. 1. On Rivers</h2>
<h3>Written at Bath. Monday, May 6, 1901</h3>
<center>ROE</center>
<p>Dear friend:</p>
<p>The river rose in the night and the mill stopped.</p>
<p>We rebuilt the weir by the next week.</p>
<h2 id="l2"><a href="#l2">Letter No. 2</a></h2>
<p>12. A numbered paragraph keeps its number.</p>
<script>var ignored = 1;</script>
</body></html>"""


def test_given_html_when_parsed_then_sections_anchors_bylines_and_datelines_are_kept() -> None:
    document = parse_html(HTML)

    assert (document.title, document.author, document.year) == (
        "Collected Letters",
        "Jane Roe",
        "1901",
    )
    assert document.url == "https://example.org/letters"
    first, second = document.passages
    assert first.heading_path == ["Collected Letters", "Letter No. 1. On Rivers"]
    assert first.anchor == "l1"
    assert (first.author, first.year) == ("Roe", "1901")
    assert first.text.startswith("Dear friend:\n\nThe river rose")
    assert first.reference == "1–2"
    assert (second.anchor, second.reference, second.author) == ("l2", "12", None)
    assert second.heading_path == ["Collected Letters", "Letter No. 2"]  # a self-link heading
    assert "ignored" not in second.text
    assert all("Letter No. 1" not in p.text for p in document.passages)  # the contents line


def test_given_a_page_of_a_site_when_parsed_then_its_masthead_and_navigation_are_no_text() -> None:
    # Given a chapter of a book published as a site: the book's and the part's title above the
    # chapter's heading, a line that links to the next chapter and one to the contents, and a
    # paragraph that links to another site and to another chapter in its sentences
    page = (
        '<html><body><p class="title">Albert Einstein: Relativity<br />Part I</p>'
        "<h3>The Principle of Relativity</h3>"
        "<p>Let us return to our example of the railway carriage.</p>"
        '<p>See <a href="https://example.org/">the translation</a> and'
        ' <a href="ch06.htm">the next section</a> for more.</p>'
        '<p class="next">Next: <a href="ch06.htm">The Addition of Velocities</a></p>'
        '<p><a href="index.htm">Relativity: The Special and General Theory</a></p></body></html>'
    )

    # When it is parsed
    document = parse_html(page)

    # Then the chapter's paragraphs are its passage, and nothing else is
    assert [(p.heading_path, p.text) for p in document.passages] == [
        (
            ["The Principle of Relativity"],
            "Let us return to our example of the railway carriage.\n\n"
            "See the translation and the next section for more.",
        )
    ]


def test_given_html_with_line_breaks_when_parsed_then_two_in_a_row_end_a_paragraph() -> None:
    # Given a page written without <p>, its paragraphs apart by two <br>, its lines by one
    first = "The river rose in the night and the mill stopped by the weir. " * 8
    second = "We rebuilt the weir by the next week with stone from the quarry. " * 8
    page = (
        "<html><body><h2>Simple Derivation<br />(Supplementary)</h2>"
        f"<div>Dear friend,<br>{first}<br/>\n<br/>{second}</div>"
        "<pre>x = 1<br>y = 2</pre></body></html>"
    )

    # When it is parsed
    document = parse_html(page)

    # Then a single break is a space between words, two end a paragraph (out of a heading),
    # and in code a break is a line's end
    assert [p.heading_path for p in document.passages] == [
        ["Simple Derivation (Supplementary)"]
    ] * 2
    assert [p.text for p in document.passages] == [
        f"Dear friend, {first.strip()}",
        f"{second.strip()}\n\n```\nx = 1\ny = 2\n```",
    ]


def test_given_markdown_with_front_matter_when_parsed_then_metadata_and_numbers_are_kept() -> None:
    text = (
        "---\ntitle: Cherishing Life\nauthor: Bishops' Conference\nyear: 2004\n"
        "tags: [ethics, life]\n---\n# Cherishing Life\n\n## Moral teaching\n\n"
        "34. The Church's teaching on moral questions rests on reason.\n\n"
        "35. It also rests on revelation.\n"
    )

    document = parse_markdown(text)

    assert (document.title, document.author, document.year) == (
        "Cherishing Life", "Bishops' Conference", "2004")  # fmt: skip
    assert document.tags == ["ethics", "life"]
    assert [(p.reference, p.anchor) for p in document.passages] == [
        ("34", "moral-teaching"), ("35", "moral-teaching")]  # fmt: skip


CATECHISM = (
    "Title: A Small Catechism\r\nAuthor: Anonymous\r\n\r\n"
    "*** START OF THIS PROJECT GUTENBERG EBOOK A SMALL CATECHISM ***\r\n\r\n"
    "Produced by A. Volunteer\r\n\r\n"
    "{Transcriber's Note: numbers in braces are those of\r\nanother edition.}\r\n\r\n"
    "LESSON FIRST.\r\nON THE END OF MAN.\r\n\r\n"
    "Q. 1. {2} Who made the world?\r\nA. God made the world.\r\n\r\n"
    "Q. 2. Who is God?\r\nA. God is the Creator of heaven and earth, and of all things.\r\n\r\n"
    "*** END OF THIS PROJECT GUTENBERG EBOOK ***\r\n\r\nLicence text here.\r\n"
)


def test_given_a_catechism_in_plain_text_when_parsed_then_answers_are_text_questions_headings() -> (
    None
):
    document = parse_text(CATECHISM)

    assert (document.title, document.author) == ("A Small Catechism", "Anonymous")
    assert [p.reference for p in document.passages] == ["1", "2"]
    assert document.passages[0].heading_path == [
        "LESSON FIRST. ON THE END OF MAN.",
        "Who made the world?",
    ]
    assert all("Licence" not in p.text for p in document.passages)
    assert [p.text for p in document.passages] == [
        "God made the world.",
        "God is the Creator of heaven and earth, and of all things.",
    ]


def test_given_articles_and_sections_in_plain_text_when_parsed_then_they_form_the_path() -> None:
    text = (
        "The Charter\n\nArticle 1\n\nSection 1. All power is vested in a council.\n\n"
        "It meets once a year.\n\nSection 2. The council has nine members.\n\n"
        "ARTICLE TWO\n\nSection 1. A chair presides."
    )

    passages = parse_text(text).passages

    assert [(p.heading_path, p.reference) for p in passages[1:]] == [
        (["Article 1", "Section 1"], "Article 1, Section 1"),
        (["Article 1", "Section 2"], "Article 1, Section 2"),
        (["ARTICLE TWO", "Section 1"], "ARTICLE TWO, Section 1"),
    ]
    assert passages[1].text.endswith("It meets once a year.")


def test_given_a_pdf_when_parsed_then_pages_become_anchors_and_metadata_is_read() -> None:
    raw = pdf(
        [["Annual report.", "Revenue grew this year."], ["7. Costs fell by a tenth."]],
        title="Annual Report",
        author="Acme Corp",
    )

    document = parse_pdf(raw)

    assert (document.title, document.author, document.year) == (
        "Annual Report",
        "Acme Corp",
        "2021",
    )
    assert [(p.anchor, p.reference) for p in document.passages] == [
        ("page=1", "p. 1"), ("page=2", "7")]  # fmt: skip
    assert "Revenue grew" in document.passages[0].text


def test_given_jsonl_passages_and_documents_when_parsed_then_each_keeps_its_metadata() -> None:
    text = (
        '{"text": "A passage.", "title": "T1", "author": "A", "year": 1999, "heading": "H",'
        ' "reference": "4", "url": "https://x.org/1", "tags": ["x"], "period_start": "1999"}\n'
        '{"title": "T2", "paragraphs": [{"n": 1, "text": "First."}, "Second."]}\n'
    )

    passages = parse_jsonl(text).passages

    assert [(p.title, p.reference, p.heading_path) for p in passages] == [
        ("T1", "4", ["H"]), ("T2", "1", []), ("T2", None, [])]  # fmt: skip
    assert (passages[0].year, passages[0].url, passages[0].tags) == (
        "1999",
        "https://x.org/1",
        ["x"],
    )


@pytest.mark.parametrize(
    ("text", "reason"), [("{not json", "line 1"), ('{"title": "x"}', "no text")]
)
def test_given_bad_jsonl_when_parsed_then_the_reason_names_the_line(text: str, reason: str) -> None:
    with pytest.raises(ValueError, match=reason):
        parse_jsonl(text)
