"""The page points into documents: a cited sentence underlined by its support, the passage
opened with its supporting sentence highlighted, its section and its PDF page linked; on a
laptop, without an API key (the local user). Documents are ingested from files written here."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from groundwork.api.app import create_app
from groundwork.ingest.pipeline import Ingestor
from groundwork.retrieval.factory import get_retriever
from groundwork.settings import Settings
from groundwork.storage.factory import get_storage
from tests.ingest.conftest import pdf
from tests.serving import served
from tests.web.conftest import Site, opened_page, screenshot

# Markdown ingest drops HTML's own elements (docs/ingestion.md); what it keeps as text, a script
# or an inline SVG, must reach the page as text too.
HOSTILE = 'Tea costs <svg onload="x()">3</svg> euros <script>x()</script> at the library café.'


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    """A two-page PDF and a Markdown file with markup in its text, served with the local
    user on, as ``groundwork serve`` on 127.0.0.1 has it."""
    root = tmp_path_factory.mktemp("library")
    settings = Settings(
        data_dir=root / "data",
        bootstrap_docs=False,
        retrieval="keyword",
        default_collection="library",
        starters_per_source=0,
        local_user=True,
    )
    docs = root / "docs"
    docs.mkdir()
    (docs / "hours.pdf").write_bytes(
        pdf(
            [
                ["Opening hours of the city library.", "The library opens at nine."],
                ["The reading room closes at eight in the evening.", "Visitors leave by then."],
            ],
            title="Library Hours",
            author="City Library",
        )
    )
    (docs / "cafe.md").write_text(f"# Café\n\n## Prices\n\n{HOSTILE} Coffee is free.\n")
    Ingestor(get_retriever(settings), get_storage(settings)).ingest(
        sorted(docs.iterdir()), collection="library", root=docs
    )
    with served(create_app(settings)) as url:
        yield Site(url, "", settings)


@pytest.fixture
def library_page(browser: Browser, library: Site) -> Iterator[Page]:
    with opened_page(browser, library.url + "/") as opened:
        yield opened


def _ask(page: Page, question: str) -> None:
    expect(page.get_by_role("checkbox", name="library")).to_be_visible()  # listed, with no key
    page.get_by_label("Question", exact=True).fill(question)
    page.get_by_role("button", name="Ask", exact=True).click()
    expect(page.locator("#ask-result .marker").first).to_be_visible()


def test_given_no_key_on_this_computer_when_a_pdf_fact_is_asked_then_its_page_is_shown(
    library_page: Page,
) -> None:
    page = library_page
    _ask(page, "When does the reading room close?")

    supported = page.locator("#ask-result .sentence .supported").first
    expect(supported).to_have_text("The reading room closes at eight in the evening.")
    expect(supported).to_have_attribute("title", "Supported by [1] 0.99")
    supported.locator("xpath=ancestor::span[1]/following-sibling::button[1]").click()

    passage = page.locator("#ask-result .passage")
    expect(passage).to_be_focused()
    expect(passage.locator("mark.supporting")).to_have_text(
        "The reading room closes at eight in the evening."
    )
    expect(passage.locator("blockquote")).to_contain_text("Visitors leave by then.")
    link = passage.locator("a.page")
    expect(link).to_have_text("Page 2")
    expect(link).to_have_attribute("href", f"{page.url}hours.pdf#page=2")
    screenshot(page, "pointing")


def test_given_markup_in_a_supporting_sentence_when_shown_then_it_is_text(
    library_page: Page,
) -> None:
    page = library_page
    _ask(page, "How much does tea cost at the library café?")

    page.locator("#ask-result .marker").first.click()

    passage = page.locator("#ask-result .passage")
    expect(passage.locator("mark.supporting")).to_have_text(HOSTILE)
    expect(passage.locator("dd")).to_contain_text(["Café › Prices"])
    expect(page.locator("#ask-result svg, #ask-result script")).to_have_count(0)
    supported = page.locator("#ask-result .supported").first
    expect(supported).to_contain_text('<svg onload="x()">3</svg>')
