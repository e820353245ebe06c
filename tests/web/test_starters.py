"""Starters in the page: a German document's proposals, shown while the conversation is
empty, asked in German from an English page; an admin's starter shown as text, never as HTML."""

from __future__ import annotations

import shutil
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from groundwork.api.app import create_app
from groundwork.settings import Settings
from groundwork.storage.starters import StarterRecord
from tests.serving import served
from tests.starters.conftest import GERMAN, service_on
from tests.web.conftest import Site, opened_page, screenshot

HOSTILE = '<img src=x data-x="1"> Is <b>this</b> shown as text?'


@pytest.fixture(scope="module")
def bakery(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    """``backen`` ingested from the German document with proposals on, one admin starter."""
    root = tmp_path_factory.mktemp("bakery")
    settings = Settings(data_dir=root / "data", bootstrap_docs=False, retrieval="keyword")
    service = service_on(settings)
    shutil.copy(GERMAN, root / "brot.md")
    service.ingestor.ingest([root / "brot.md"], collection="backen", root=root)
    accounts = service.stores.accounts
    accounts.create_user("baker", "Baker")
    accounts.create_collection("backen", "Backen")
    accounts.grant("baker", "backen")
    service.stores.starters.add(
        StarterRecord(id="st_hostile", collection="backen", text=HOSTILE, language="en")
    )
    key = accounts.issue_api_key("baker")
    with served(create_app(settings)) as url:
        yield Site(url, key, settings)


@pytest.fixture
def bakery_page(browser: Browser, bakery: Site) -> Iterator[Page]:
    with opened_page(browser, bakery.url + "/") as opened:
        opened.get_by_label("API key").fill(bakery.key)
        opened.get_by_role("button", name="Save").click()
        yield opened


def test_given_a_german_starter_when_clicked_on_an_english_page_then_it_is_answered_in_german(
    bakery_page: Page,
) -> None:
    page = bakery_page
    starters = page.locator("#ask-starters .starter")
    german = starters.filter(has_text="Sauerteig")
    expect(german).to_have_text("Wie wird der Sauerteig angesetzt?")
    expect(german).to_have_attribute("lang", "de")
    expect(page.locator("html")).to_have_attribute("lang", "en")
    expect(page.get_by_label("Language")).to_have_value("auto")
    # An admin's starter comes first, and its markup is text.
    expect(starters.first).to_have_text(HOSTILE)
    expect(page.locator("#ask-starters img, #ask-starters b")).to_have_count(0)
    expect(starters).to_have_count(4)
    screenshot(page, "starters")

    with page.expect_request(lambda request: request.url.endswith("/v1/chat")) as sent:
        german.click()

    assert sent.value.post_data_json["language"] == "de"
    assert sent.value.post_data_json["messages"][-1]["content"] == (
        "Wie wird der Sauerteig angesetzt?"
    )
    expect(page.locator("#ask-result .marker").first).to_be_visible()
    expect(page.locator("#ask-result .meta")).to_contain_text("· de")
    expect(page.locator("#ask-result .answer-body")).to_contain_text("Sauerteig")
    expect(page.locator("#ask-starters")).to_be_hidden()

    page.get_by_role("button", name="New conversation").click()

    expect(page.locator("#ask-starters")).to_be_visible()
    expect(starters).to_have_count(4)


def test_given_a_key_without_collections_when_the_page_opens_then_no_starter_shows(
    bakery_page: Page,
) -> None:
    page = bakery_page
    expect(page.locator("#ask-starters .starter").first).to_be_visible()

    page.get_by_label("API key").fill("")
    page.get_by_role("button", name="Save").click()

    expect(page.locator("#ask-starters")).to_be_hidden()
