"""Documents as people have them: reStructuredText, Word, PowerPoint, EPUB, and where every
passage sits in its document's extracted text. The fixtures are written by code here
(``tests/ingest/conftest.py``), never binary files."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest

from groundwork.cli.main import main
from groundwork.ingest.document import Document
from groundwork.ingest.markdown import parse_markdown
from groundwork.ingest.pipeline import Ingestor, parse
from groundwork.ingest.plaintext import parse_text
from groundwork.ingest.rst import parse_rst
from groundwork.retrieval.base import SearchFilter
from groundwork.retrieval.keyword import KeywordIndex
from groundwork.storage.sqlite import SQLiteStorage
from tests.ingest.conftest import docx, epub, pdf, pptx

PEP = """PEP: 8
Title: Style Guide for Python Code
Author: Guido van Rossum <guido@python.org>,
        Barry Warsaw <barry@python.org>
Created: 05-Jul-2001

Introduction
============

This document gives coding conventions for the Python code; see :func:`os.path.join`.

Code Lay-out
============

Indentation
-----------

Use 4 spaces per indentation level::

    def long_function_name(
            var_one, var_two):
        print(var_one)

.. include:: /etc/passwd
"""


def _located(document: Document) -> None:
    """Every passage is exactly its stretch of the extracted text."""
    assert document.passages
    for passage in document.passages:
        assert passage.start is not None
        assert passage.end is not None
        assert document.text[passage.start : passage.end] == passage.text


def test_given_a_pep_style_rst_when_parsed_then_its_header_is_metadata_and_sections_structure() -> (
    None
):
    document = parse_rst(PEP)

    assert document.title == "Style Guide for Python Code"
    assert document.author == "Guido van Rossum, Barry Warsaw"
    assert document.year == "2001"
    assert all("Created" not in p.text and "PEP" not in p.text for p in document.passages)
    intro, indentation = document.passages
    assert intro.heading_path == ["Introduction"]
    assert intro.anchor == "introduction"
    assert "see os.path.join." in intro.text  # a Sphinx role read as its text
    assert indentation.heading_path == ["Code Lay-out", "Indentation"]
    # The literal block stays code, with its line breaks, fenced as in Markdown.
    assert "```\ndef long_function_name(\n        var_one, var_two):\n" in indentation.text
    assert "root" not in document.text  # the include directive read nothing
    _located(document)


def test_given_rst_with_a_field_list_header_when_parsed_then_the_fields_are_metadata() -> None:
    text = (
        ":Title: Release Notes\n:Author: Jane Roe\n:Created: 2019-04-01\n:Tags: ops, notes\n\n"
        "Upgrading\n=========\n\nStop the service first.\n\n"
        ".. code-block:: sh\n\n   systemctl stop app\n   app migrate\n"
    )

    document = parse_rst(text)

    assert (document.title, document.author, document.year) == ("Release Notes", "Jane Roe", "2019")
    assert document.tags == ["ops", "notes"]
    (passage,) = document.passages
    assert passage.heading_path == ["Upgrading"]
    assert passage.text == "Stop the service first.\n\n```sh\nsystemctl stop app\napp migrate\n```"


def test_given_a_word_document_when_parsed_then_headings_lists_tables_and_code_are_kept() -> None:
    raw = docx(
        [
            ("Heading1", "Leave"),
            (None, "Staff get 25 days of paid leave a year."),
            ("Heading2", "Sick leave"),
            (None, "Tell your manager on the first day."),
            ("Code", "leave --days 3\nleave --list"),
        ],
        author="HR team",
        created="2023-02-01T09:00:00Z",
    )

    document = parse(".docx", raw)

    assert (document.title, document.author, document.year) == ("Leave", "HR team", "2023")
    first, second = document.passages
    assert (first.heading_path, first.anchor) == (["Leave"], "leave")
    assert second.heading_path == ["Leave", "Sick leave"]
    assert second.text.endswith("```\nleave --days 3\nleave --list\n```")
    _located(document)


def test_given_a_word_document_from_heading_2_when_parsed_then_its_headings_are_siblings() -> None:
    raw = docx(
        [
            ("Heading2", "Leave"),
            (None, "Staff get 25 days."),
            ("Heading3", "Sick leave"),
            (None, "Tell your manager."),
            ("Heading2", "Expenses"),
            (None, "Keep the receipts."),
        ]
    )

    document = parse(".docx", raw)

    assert [p.heading_path for p in document.passages] == [
        ["Leave"],
        ["Leave", "Sick leave"],
        ["Expenses"],
    ]


def test_given_a_word_document_with_core_properties_when_parsed_then_they_name_it() -> None:
    raw = docx([("Heading1", "Scope"), (None, "It covers staff.")], title="Staff Handbook")

    assert parse(".docx", raw).title == "Staff Handbook"


def test_given_a_slide_deck_when_parsed_then_each_slide_is_a_page_headed_by_its_title() -> None:
    raw = pptx([("Quarterly review", ["Revenue grew 4%.", "Costs fell."]), ("Next", ["Hire."])])

    document = parse(".pptx", raw)

    assert document.title == "Quarterly review"
    assert [(p.heading_path, p.page, p.reference) for p in document.passages] == [
        (["Quarterly review"], 1, "slide 1"), (["Next"], 2, "slide 2")]  # fmt: skip
    _located(document)


def test_given_an_epub_when_parsed_then_its_chapters_are_read_in_spine_order() -> None:
    raw = epub(
        ["<h1>Chapter One</h1><p>It was a dark night.</p>", "<h1>Two</h1><p>Dawn came.</p>"],
        title="A Book",
        author="Ann Lee",
        date="1999-05-01",
    )

    document = parse(".epub", raw)

    assert (document.title, document.author, document.year) == ("A Book", "Ann Lee", "1999")
    assert [(p.heading_path, p.text) for p in document.passages] == [
        (["Chapter One"], "It was a dark night."), (["Two"], "Dawn came.")]  # fmt: skip


def test_given_a_pdf_when_parsed_then_each_passage_knows_its_page_in_the_text() -> None:
    raw = pdf([["Annual report.", "Revenue grew."], ["The office moved to Leeds."]], title="R",
              author="A")  # fmt: skip

    document = parse(".pdf", raw)

    assert [(p.page, p.page_end) for p in document.passages] == [(1, 1), (2, 2)]
    for passage in document.passages:
        assert passage.start is not None
        assert document.text.count("\f", 0, passage.start) + 1 == passage.page
    _located(document)


def test_given_plain_text_with_underlined_titles_and_indented_code_when_parsed_then_kept() -> None:
    text = (
        "Guide\n=====\n\nSome words about the tool.\n\nInstall\n-------\n\nRun this:\n\n"
        "    pip install tool\n    tool --help\n"
    )

    document = parse_text(text)

    assert document.title == "Guide"
    assert [p.heading_path for p in document.passages] == [["Guide"], ["Guide", "Install"]]
    assert document.passages[1].text == "Run this:\n\n```\npip install tool\ntool --help\n```"
    _located(document)


def test_given_a_long_first_paragraph_in_plain_text_when_parsed_then_it_is_not_the_title() -> None:
    assert parse_text("This first paragraph runs on. " * 10 + "\n\nMore.").title is None


def test_given_unwrapped_text_with_no_blank_lines_when_parsed_then_each_line_is_a_paragraph() -> (
    None
):
    # Given a speech as a web page copied as text gives it: a paragraph per line, no blank line
    first = "Among the vicissitudes incident to life no event could have filled me. " * 7
    second = "Such being the impressions under which I have repaired to the station. " * 7
    text = f"Fellow-Citizens of the Senate:\n{first}\n{second}\n"

    # When it is parsed
    document = parse_text(text)

    # Then each line is a paragraph of its own, so the passages are the speech's paragraphs
    # and not one passage of it all; the salutation does not name the document
    assert document.title is None
    assert [p.text for p in document.passages] == [
        f"Fellow-Citizens of the Senate:\n\n{first.strip()}",
        second.strip(),
    ]
    _located(document)


def test_given_wrapped_text_when_parsed_then_its_lines_are_joined_into_paragraphs() -> None:
    line = "A line of prose wrapped at the width a text editor uses,"
    text = f"{line}\n{line}\n{line}\n\nAnother paragraph."

    passages = parse_text(text).passages

    assert passages[0].text == f"{line} {line} {line}\n\nAnother paragraph."


@pytest.mark.parametrize(
    "first", ["Fellow-Citizens:", "[Delivered in person at the Capitol]", "I thank you all."]
)
def test_given_a_short_first_line_that_names_nothing_when_parsed_then_it_is_not_the_title(
    first: str,
) -> None:
    assert parse_text(f"{first}\n\nThe speech itself.").title is None


def test_given_gutenberg_illustration_marks_when_parsed_then_only_their_captions_are_text() -> None:
    # Given a Project Gutenberg text, whose pictures are marks in brackets where the book had them
    text = (
        "The flame goes upwards.\n\n[Illustration: Fig. 5.]\n\n[Illustration]\n\n"
        "[Illustration: Fig. 3.--The flame of a\ncandle]\n\n[Illustration: Plate IV]\n\n"
        "[Illustration: Figure in a lecture hall]\n\n[Illustration: Fig. 9]\n"
        "[Illustration: Fig. 10.--A lamp]\n\n"
        "[Footnote 1: Page 16. The candle was under water.]\n\nIt burns."
    )

    # When it is parsed
    document = parse_text(text)

    # Then a mark that only numbers its figure is no text, a caption is read without its
    # number (and only a number is taken for one), marks on lines of one block each give their
    # caption, and a footnote, which says something, stays
    assert [p.text for p in document.passages] == [
        "The flame goes upwards.\n\nThe flame of a candle\n\nFigure in a lecture hall\n\n"
        "A lamp\n\n"
        "[Footnote 1: Page 16. The candle was under water.]\n\nIt burns."
    ]
    _located(document)


def test_given_markdown_with_setext_headings_when_parsed_then_they_are_headings() -> None:
    document = parse_markdown("Title\n=====\n\nBody.\n\nPart\n----\n\nMore body.\n")

    assert document.title == "Title"
    assert [p.heading_path for p in document.passages] == [["Title"], ["Title", "Part"]]
    _located(document)


def test_given_markdown_starting_at_level_2_when_parsed_then_a_later_level_2_is_a_sibling() -> None:
    page = "## Install\n\nRun pip.\n\n### From source\n\nClone it.\n\n## Usage\n\nCall it.\n"

    document = parse_markdown(page)

    assert [p.heading_path for p in document.passages] == [
        ["Install"],
        ["Install", "From source"],
        ["Usage"],
    ]


def test_given_a_setext_heading_with_no_blank_line_under_it_when_parsed_then_it_is_a_heading() -> (
    None
):
    document = parse_markdown("ripgrep (rg)\n------------\nripgrep searches recursively.\n")

    assert [(p.heading_path, p.text) for p in document.passages] == [
        (["ripgrep (rg)"], "ripgrep searches recursively.")
    ]
    _located(document)


def test_given_a_list_over_a_rule_when_parsed_then_the_rule_does_not_make_it_a_heading() -> None:
    document = parse_markdown("# Steps\n\n- one\n- two\n---\n\nDone.\n")

    assert {tuple(p.heading_path) for p in document.passages} == {("Steps",)}
    assert "- one\n- two" in document.passages[0].text


def test_given_markdown_with_html_headings_when_parsed_then_they_are_headings() -> None:
    page = (
        "## FAQ\n\n"
        '<h3 name="config">\nDoes it read a <code>config</code> file?\n</h3>\n\n'
        "Yes, see the guide.\n\n"
        '<h3 name="dfa">How do I make <code>-f</code> faster?</h3>\n'
        "Raise the DFA size.\n\n"
        '<h2 align="center">\nUnclosed\n\n'
        "A blank line ends it.\n"
    )

    document = parse_markdown(page)

    assert [(p.heading_path, p.text) for p in document.passages] == [
        (["FAQ", "Does it read a config file?"], "Yes, see the guide."),
        (["FAQ", "How do I make -f faster?"], "Raise the DFA size."),
        (["Unclosed"], "A blank line ends it."),
    ]
    _located(document)


def test_given_markdown_with_comments_and_directives_when_parsed_then_only_the_page_is_kept() -> (
    None
):
    page = (
        "# Counter notice\n\n<!-- markdownlint-disable GHD034 -->\n"
        "***Tell the Truth.*** <!-- markdownlint-disable-line emphasis-style -->\n"
        "Lying in a sworn declaration is a crime.\n\n"
        "Write `<!-- note -->` for a note.\n\n<!--\nlocalization update\n-->\nAfter it.\n\n"
        "::: httpx.HTTPError\n    :docstring:\n\n```html\n<!-- in code -->\n```\n"
    )

    document = parse_markdown(page)

    assert [p.text for p in document.passages] == [
        "***Tell the Truth.***\nLying in a sworn declaration is a crime.\n\n"
        "Write `<!-- note -->` for a note.\n\nAfter it.\n\n```html\n<!-- in code -->\n```"
    ]
    _located(document)


def test_given_markdown_with_html_tags_when_parsed_then_their_text_is_kept_without_them() -> None:
    page = (
        '# Welcome\n\n<aside markdown="1" class="pquote">\n'
        '  <img src="https://example.org/a.png" class="pquote-avatar" alt="">\n'
        "  A welcoming community is an investment.\n"
        '  <p markdown="1" class="pquote-credit">\n— @someone\n  </p>\n</aside>\n\n'
        '<a name="public-data"></a>**Public data**: a name<br>and a <code>login</code>.\n\n'
        "Generics are written `List<int>` or List<T>; see <https://example.org>.\n\n"
        '<div style="position: relative;">\n  <iframe\n    src="https://example.org/embed"\n'
        "    allowfullscreen\n  ></iframe>\n</div>\n\nAfter the video.\n\n"
        "Compare x <b with y.\n"
    )

    document = parse_markdown(page)

    assert [p.text for p in document.passages] == [
        "A welcoming community is an investment.\n\n— @someone\n\n"
        "**Public data**: a name and a login.\n\n"
        "Generics are written `List<int>` or List<T>; see <https://example.org>.\n\n"
        "After the video.\n\nCompare x <b with y."
    ]
    _located(document)


def test_given_markdown_with_character_references_when_parsed_then_they_read_as_shown() -> None:
    page = (
        "---\ntitle: Comenzando un proyecto de C&oacute;digo Abierto\n---\n\n"
        "## Tu checklist de pr&eacute;-lanzamiento\n\n"
        "For leave &lt;2 weeks&#160;&mdash; ask. Write `&amp;` for an ampersand.\n\n"
        "&#35; is no heading.\n\n```html\na &amp; b\n```\n"
    )

    document = parse_markdown(page)

    assert document.title == "Comenzando un proyecto de Código Abierto"
    assert document.passages[0].heading_path == ["Tu checklist de pré-lanzamiento"]
    assert document.passages[0].text == (
        "For leave <2 weeks\xa0— ask. Write `&amp;` for an ampersand.\n\n"
        "# is no heading.\n\n```html\na &amp; b\n```"
    )
    _located(document)


def test_given_markdown_with_admonitions_when_parsed_then_each_shows_its_title() -> None:
    page = (
        "# Testing\n\n!!! warning\n    The suite uses ports **8000** and **8001**.\n\n"
        '!!! tip "Gotcha"\n    Close the client.\n\n!!! note ""\n    No title.\n'
    )

    document = parse_markdown(page)

    assert [p.text for p in document.passages] == [
        "Warning:\n    The suite uses ports **8000** and **8001**.\n\n"
        "Gotcha:\n    Close the client.\n\nNo title."
    ]


def test_given_markdown_with_rules_and_link_definitions_when_parsed_then_they_are_no_text() -> None:
    # Given a page with what its rendered form never shows as text: a MyST target label, a
    # thematic break, link reference definitions, block attributes, and a content tab's marker
    page = (
        "(install)=\n{.hide-header}\n# Install\n\n{#see .lead}\nSee [the guide][guide].\n\n---\n\n"
        '=== "Windows"\n    Run `setup.exe`.\n\n* * *\n\n'
        '[guide]: https://example.org/guide "The guide"\n[faq]: #faq\n\n'
        "```yaml\n---\nkey: value\n---\n```\n\nTitle\n---\n\nBody.\n"
    )

    # When it is parsed
    document = parse_markdown(page)

    # Then the label, the rules, the definitions and the attributes are no text, the tab reads
    # as its title, and a rule inside code and a setext underline keep their meaning
    assert [(p.text, p.heading_path) for p in document.passages] == [
        (
            "See [the guide][guide].\n\nWindows:\n    Run `setup.exe`.\n\n"
            "```yaml\n---\nkey: value\n---\n```",
            ["Install"],
        ),
        ("Body.", ["Install", "Title"]),
    ]
    _located(document)


def test_given_myst_directives_when_parsed_then_they_read_as_sphinx_renders_them() -> None:
    # Given a page of a Sphinx site written in MyST: admonitions and version notes (fenced by
    # backticks or colons, one holding a code block, one closed by a longer fence), roles,
    # options as lines or as YAML, a code-block, directives that render no text, and one this
    # parser does not know
    page = (
        "# Testing {class}`CliRunner`\n\n```{currentmodule} click\n```\n\n"
        "```{versionadded} 6.0\n```\n\n"
        "Call {meth}`~click.Context.invoke` (see {ref}`the options <options>`, "
        "`{type}:{value}`). A lone `` and {func}`click.echo`.\n\n"
        "```{note} If you need more, try tqdm.\n```\n\n"
        "````{versionchanged} 8.4.0\nAdded `capture`.\n\n```python\nx = 1\n```\n````\n\n"
        "```{code-block} python\n:caption: test_prompt.py\n\nfrom click import echo\n```\n\n"
        "```{admonition} Why print()?\n:class: hint\n\nThe pager keeps ANSI codes.\n```\n\n"
        ":::{tip}\nUse a temporary directory.\n::::\n\n"
        "```{warning}\n---\nclass: strong\n---\nNo threads.\n```\n\n"
        "```{toctree}\n:maxdepth: 1\n\ncontributing\n```\n\n"
        "```{math}\ne = mc^2\n```\n"
    )

    # When it is parsed
    document = parse_markdown(page)

    # Then the prose shows under its title, a role as its text, the code is code without its
    # options, and what renders no text is none
    assert [p.text for p in document.passages] == [
        "Added in version 6.0.\n\nCall `invoke()` (see the options, `{type}:{value}`). "
        "A lone `` and `click.echo()`.\n\n"
        "Note: If you need more, try tqdm.\n\n"
        "Changed in version 8.4.0:\nAdded `capture`.\n\n```python\nx = 1\n```\n\n"
        "```python\nfrom click import echo\n```\n\n"
        "Why print()?\nThe pager keeps ANSI codes.\n\nTip:\nUse a temporary directory.\n\n"
        "Warning:\nNo threads.\n\n```{math}\ne = mc^2\n```"
    ]
    assert document.title == "Testing CliRunner"
    _located(document)


def test_given_myst_eval_rst_blocks_when_parsed_then_they_read_as_the_built_page_shows_them() -> (
    None
):
    # Given a Click page in MyST: an example whose code has a blank line inside, the run made
    # when the site is built, content tabs, a list of autodoc entries and a caution, each in an
    # {eval-rst} block
    page = (
        "# Options\n\nA flag:\n\n```{eval-rst}\n.. click:example::\n\n"
        "    @click.command()\n    @click.option('--shout', is_flag=True)\n"
        "    def info(shout):\n        rv = 'x'\n\n        click.echo(rv)\n\n"
        "What it looks like:\n\n.. click:run::\n\n    invoke(info, args=['--shout'])\n```\n\n"
        "```{eval-rst}\n.. tabs::\n\n   .. group-tab:: Windows\n\n"
        "      .. code-block:: text\n\n         > .venv\\scripts\\activate\n```\n\n"
        "```{eval-rst}\n*   .. autoclass:: Choice\n       :noindex:\n```\n\n"
        "```{eval-rst}\n.. caution::\n   Flags are not prompts.\n```\n"
    )

    # When it is parsed
    document = parse_markdown(page)

    # Then the example is its code, its lines as written, the run and the autodoc entry are
    # no text (nor is the line that introduced the run), a tab is its content under its title
    # and the caution is prose
    assert [p.text for p in document.passages] == [
        "A flag:\n\n```\n@click.command()\n@click.option('--shout', is_flag=True)\n"
        "def info(shout):\n    rv = 'x'\n\n    click.echo(rv)\n```\n\n"
        "Windows:\n\n```text\n> .venv\\scripts\\activate\n```\n\n"
        "Caution: Flags are not prompts."
    ]
    _located(document)


def test_given_code_with_blank_lines_and_braces_when_parsed_then_its_lines_are_as_written() -> None:
    # Given a Markdown fence and a reStructuredText literal block, each with an indented line
    # after a blank one and a placeholder in braces, and prose with a braced edition number
    # beside inline code holding one
    markdown = (
        "# Format\n\nUse `'{0}'.format(x)` {12} so:\n\n```python\ndef f(x):\n"
        "    a = '{0}'.format(x)\n\n\n    return a\n```\n"
    )
    rst = (
        "Format\n======\n\nSo::\n\n    def f(x):\n        a = '{0}'.format(x)\n\n        return a\n"
    )

    # When each is parsed
    from_markdown, from_rst = parse_markdown(markdown), parse_rst(rst)

    # Then the code is as written, blank lines and all, and only the prose loses the number
    assert [p.text for p in from_markdown.passages] == [
        "Use `'{0}'.format(x)` so:\n\n```python\ndef f(x):\n    a = '{0}'.format(x)\n\n\n"
        "    return a\n```"
    ]
    assert [p.text for p in from_rst.passages] == [
        "So:\n\n```\ndef f(x):\n    a = '{0}'.format(x)\n\n    return a\n```"
    ]
    _located(from_markdown)
    _located(from_rst)


def test_given_an_introduction_where_a_passage_is_full_when_parsed_then_it_goes_with_its_list() -> (
    None
):
    # Given a section whose introduction ("… the following:") comes where a passage is full, and
    # one whose introduction alone precedes a list longer than a passage, in Markdown and HTML
    long = "The foundation supports its projects in many ways. " * 16
    items = "".join(f"- Item number {n} of the list, which is long.\n" for n in range(25))
    markdown = (
        f"# Rules\n\n## Joining\n\n{long}\n\nA project must meet the following:\n\n"
        "- Two users of the project.\n- A licence that is open.\n\n## Leaving\n\nThese apply:\n\n"
        + items
    )
    html = (
        f"<h1>Rules</h1><p>{long}</p><p>A project must meet the following:</p>"
        "<p>Two users of the project and a licence that is open.</p>"
    )

    # When each is parsed
    from_markdown = parse_markdown(markdown)
    from_html = parse(".html", html.encode())

    # Then the introduction opens the passage of what it introduces, or grows with it
    assert [p.text[:40] for p in from_markdown.passages] == [
        long[:40],
        "A project must meet the following:\n\n- Tw",
        "These apply:\n\n- Item number 0 of the lis",
    ]
    assert len(from_markdown.passages[2].text) > 900
    assert [p.text for p in from_html.passages][1:] == [
        "A project must meet the following:\n\nTwo users of the project and a licence that is open."
    ]
    _located(from_markdown)
    _located(from_html)


def test_given_a_paragraph_longer_than_a_passage_when_parsed_then_it_is_cut_between_sentences() -> (
    None
):
    # Given a paragraph of 50 sentences (about 2,700 characters), in Markdown, plain text and
    # HTML (numbered there), and a list item and a code block as long
    sentences = [f"The {n}th argument of the essay is about the states." for n in range(50)]
    paragraph = " ".join(sentences)
    item = "- " + " ".join(sentences)
    code = "```\n" + "\n".join(f"x{n} = {n}  # {s}" for n, s in enumerate(sentences)) + "\n```"
    markdown = f"# Essay\n\n{paragraph}\n\n## List\n\n{item}\n\n## Code\n\n{code}\n"

    # When each is parsed
    from_markdown = parse_markdown(markdown)
    from_text = parse_text(f"Essay\n\n{paragraph}\n")
    from_html = parse(".html", f"<h1>Essay</h1><p>Opening.</p><p>{paragraph}</p>".encode())

    # Then the prose is cut between its sentences into about equal parts of about a passage,
    # every sentence whole and in order; the list item and the code stay one passage each
    for document in (from_markdown, from_text, from_html):
        parts = [p.text for p in document.passages if not p.text.startswith(("- ", "```"))]
        assert len(parts) == 3
        assert all(750 <= len(part) <= 1000 for part in parts)
        assert " ".join(parts).split("\n\n")[-1] == paragraph
        _located(document)
    assert [len(p.text) for p in from_markdown.passages[-2:]] == [len(item), len(code)]
    # and in HTML each part has the paragraph's number: its second
    assert [p.reference for p in from_html.passages] == ["1–2", "2", "2"]


def test_given_rst_with_sphinx_directives_when_parsed_then_examples_stay_and_autodoc_goes() -> None:
    # Given a reStructuredText page of a Sphinx site with directives docutils does not know: an
    # example, an autodoc entry, a function's description, a version note, an included file
    page = (
        "Arguments\n=========\n\nExample:\n\n.. click:example::\n\n    @click.command()\n"
        "    def touch():\n        pass\n\n.. autofunction:: click.argument\n\n"
        ".. py:function:: touch(filename)\n   :noindex:\n\n   Touches the file.\n\n"
        ".. versionchanged:: 8.0\n   Takes a path.\n\n.. literalinclude:: ../examples/touch.py\n"
    )

    # When it is parsed
    document = parse_rst(page)

    # Then the example is code, the generated API entry and the included file are no text, a
    # description is its content under its signature and a version note under its version
    assert [p.text for p in document.passages] == [
        "Example:\n\n```\n@click.command()\ndef touch():\n    pass\n```\n\n"
        "touch(filename):\n\nTouches the file.\n\nChanged in version 8.0: Takes a path."
    ]
    _located(document)


@pytest.mark.parametrize(
    ("suffix", "raw", "reason"),
    [
        (".docx", b"not a zip", "not a zip package"),
        (".epub", docx([(None, "x")]), "META-INF/container.xml"),
    ],
)
def test_given_a_broken_package_when_parsed_then_the_reason_is_given(
    suffix: str, raw: bytes, reason: str
) -> None:
    with pytest.raises(ValueError, match=reason):
        parse(suffix, raw)


def test_given_a_zip_that_inflates_enormously_when_parsed_then_it_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from groundwork.ingest import packages

    monkeypatch.setattr(packages, "MAX_PART_BYTES", 10_000)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as bomb:
        bomb.writestr("word/document.xml", "<a>" + " " * 1_000_000 + "</a>")

    with pytest.raises(ValueError, match="inflates beyond"):
        parse(".docx", out.getvalue())


def test_given_a_folder_of_formats_and_an_unsupported_file_when_ingested_then_each_is_read(
    tmp_path: Path, data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Given .md, .rst, .docx, .pdf and a .heic, when the folder is ingested, then each
    document has its title and sections, the .heic is named and counted, and the run
    succeeds; a folder with nothing readable exits 1."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "guide.md").write_text("# Guide\n\n## Setup\n\nInstall it first.\n")
    (docs / "notes.rst").write_text(":Author: Ops\n\nRelease Notes\n=============\n\nAll good.\n")
    (docs / "handbook.docx").write_bytes(docx([("Heading1", "Leave"), (None, "25 days.")]))
    (docs / "report.pdf").write_bytes(pdf([["Page one."], ["Page two."]], title="Report",
                                          author="Acme"))  # fmt: skip
    (docs / "photo.heic").write_bytes(b"\x00\x01")

    code = main(["ingest", str(docs), "--collection", "mixed"])

    out = capsys.readouterr()
    assert code == 0
    assert "4 files: 4 added" in out.out
    assert "1 skipped: unsupported type .heic" in out.out
    assert f"skipped: {docs / 'photo.heic'}: unsupported type .heic" in out.err
    index = KeywordIndex(data_dir / "index.sqlite3")
    found = {
        hit.card.title: hit.card.heading_path
        for query in ("Install", "good", "days", "Page")
        for hit in index.search(query, SearchFilter(collections=["mixed"]), 5)
    }
    assert found == {
        "Guide": ["Guide", "Setup"],
        "Release Notes": ["Release Notes"],
        "Leave": ["Leave"],
        "Report": [],
    }
    empty = tmp_path / "photos"
    empty.mkdir()
    (empty / "a.heic").write_bytes(b"\x00")

    assert main(["ingest", str(empty), "--collection", "mixed"]) == 1
    assert "nothing was ingested" in capsys.readouterr().err


def test_given_a_file_when_its_text_is_asked_then_the_extracted_text_is_printed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = tmp_path / "report.pdf"
    doc.write_bytes(pdf([["Page one."], ["Page two."]], title="R", author="A"))

    assert main(["ingest", str(doc), "--text"]) == 0

    out = capsys.readouterr()
    assert out.out == "Page one.\fPage two.\n"
    assert "passage 1: characters 10–19 p. 2" in out.err


def test_given_documents_ingested_when_indexed_then_every_card_points_into_its_text(
    tmp_path: Path, index: KeywordIndex, storage: SQLiteStorage
) -> None:
    doc = tmp_path / "notes.rst"
    doc.write_text(PEP)

    Ingestor(index, storage).ingest([doc], collection="c", root=tmp_path)

    document = parse(".rst", doc.read_bytes())
    cards = [h.card for h in index.search("indentation code", SearchFilter(collections=["c"]), 5)]
    assert cards
    for card in cards:
        assert card.char_start is not None
        assert card.char_end is not None
        assert document.text[card.char_start : card.char_end] == card.text
