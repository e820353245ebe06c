"""The page under a grant narrowed after an answer: the answer is withheld, never shown."""

from __future__ import annotations

import uuid

from playwright.sync_api import Page, expect

from groundwork.storage.factory import get_stores
from tests.web.conftest import Site
from tests.web.test_browser import _sign_in


def test_given_an_answer_from_cards_no_longer_granted_when_its_conversation_opens_then_withheld(
    page: Page, site: Site
) -> None:
    user = f"pilgrim-{uuid.uuid4().hex[:8]}"
    accounts = get_stores(site.settings).accounts
    accounts.create_user(user, "Pilgrim")
    accounts.grant(user, "catechism")
    _sign_in(page, Site(site.url, accounts.issue_api_key(user), site.settings))
    page.get_by_role("checkbox", name="Catechism").check()
    page.get_by_label("Question", exact=True).fill("Who made us?")
    page.get_by_role("button", name="Ask", exact=True).click()
    # The first answer of a session warms the app up: seconds on a loaded machine.
    expect(page.locator("#ask-result .marker")).to_be_visible(timeout=30_000)
    expect(page.locator("#ask-result")).to_contain_text("God made us")

    # "God made us." has no tag: the narrowed grant no longer shows it.
    accounts.grant(user, "catechism", tags=["sacraments"])
    page.get_by_role("tab", name="Conversations").click()
    feed = page.locator("#conv-feed")
    turn = feed.locator(".turn").first

    expect(turn.locator(".withheld")).to_contain_text("no longer have access")
    expect(feed).not_to_contain_text("God made us")
    turn.get_by_role("button", name="Regenerate answer").click()
    expect(turn.locator("select option")).to_have_count(2, timeout=30_000)
    expect(feed).not_to_contain_text("God made us")
