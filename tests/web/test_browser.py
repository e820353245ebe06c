"""The page driven the way a person uses it, in headless Chromium against the running app."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from tests.web.conftest import Site, screenshot


def _sign_in(page: Page, site: Site) -> None:
    page.get_by_label("API key").fill(site.key)
    page.get_by_role("button", name="Save").click()
    expect(page.locator("#api-key-help")).to_have_text("Saved in this browser.")


def _ask(page: Page, question: str) -> None:
    page.get_by_label("Collections").fill("catechism")
    page.get_by_label("Question", exact=True).fill(question)
    page.get_by_role("button", name="Ask", exact=True).click()
    expect(page.locator("#ask-result .marker").first).to_be_visible()


def test_given_a_question_when_a_citation_is_opened_then_its_passage_shows(
    page: Page, site: Site
) -> None:
    _sign_in(page, site)
    _ask(page, "How many sacraments are there?")

    sentence = page.locator("#ask-result .sentence", has_text="seven sacraments")
    marker = sentence.locator("xpath=following-sibling::button[1]")
    marker.click()

    passage = page.locator("#ask-result .passage")
    expect(passage).to_be_visible()
    expect(passage).to_be_focused()
    expect(passage.locator("h3")).to_contain_text("How many sacraments are there?")
    expect(passage).to_contain_text("There are seven sacraments")
    expect(passage).to_contain_text("Third Plenary Council of Baltimore")
    expect(passage).to_contain_text("1885")
    expect(passage.locator("a")).to_have_attribute("href", re.compile(r"example\.org/catechism#"))
    expect(marker).to_have_attribute("aria-expanded", "true")
    # Every cited sentence is checked against its passage and tinted by its support.
    expect(page.locator("#ask-result .sentence.tint-strong").first).to_be_visible()
    screenshot(page, "ask")

    page.keyboard.press("Escape")
    expect(passage).to_be_hidden()
    expect(marker).to_be_focused()


def test_given_a_cached_answer_when_a_fresh_one_is_asked_then_the_cache_is_bypassed(
    page: Page, site: Site
) -> None:
    _sign_in(page, site)
    _ask(page, "Who made us?")
    page.get_by_role("button", name="New conversation").click()
    _ask(page, "Who made us?")
    expect(page.locator("#ask-result .cached")).to_contain_text("came from the cache")

    page.get_by_role("button", name="Get a fresh answer").click()

    expect(page.locator("#ask-result .marker").first).to_be_visible()
    expect(page.locator("#ask-result .cached")).to_have_count(0)


def test_given_a_conversation_when_regenerated_and_edited_then_versions_switch(
    page: Page, site: Site
) -> None:
    _sign_in(page, site)
    _ask(page, "What is prayer?")
    page.get_by_role("tab", name="Conversations").click()
    turn = page.locator("#conv-feed .turn").first
    expect(turn.locator(".question")).to_have_text("What is prayer?")

    turn.get_by_role("button", name="Regenerate answer").click()
    expect(turn.locator("select option")).to_have_count(2)

    turn.get_by_role("button", name="Edit question").click()
    turn.get_by_label("Edited question").fill("What is Baptism?")
    turn.get_by_role("button", name="Ask the edited question").click()
    expect(turn.locator("select option")).to_have_count(3)
    expect(turn.locator(".question")).to_have_text("What is Baptism?")
    expect(turn.locator(".answer")).to_contain_text("sanctifying grace")
    screenshot(page, "conversations")

    first = turn.locator("select option").first.get_attribute("value")
    assert first is not None
    turn.locator("select").select_option(first)

    expect(turn.locator(".question")).to_have_text("What is prayer?")
    expect(turn.locator(".answer")).to_contain_text("lifting up of our minds")
    expect(turn.locator("select")).to_be_focused()


def test_given_the_titanic_example_when_checked_then_the_unsupported_claim_is_marked(
    page: Page,
) -> None:
    page.get_by_role("tab", name="Check grounding").click()
    page.get_by_role("button", name="Load the Titanic example").click()
    page.get_by_role("button", name="Check grounding").click()

    expect(page.locator("#g-support")).to_have_text(re.compile(r"^0\.\d\d$"))
    unsupported = page.locator("#g-result .claim.tint-weak")
    expect(unsupported).to_have_count(1)
    expect(unsupported).to_contain_text("Brad Pitt")
    expect(unsupported.locator(".flag")).to_have_text("Unsupported")
    supported = page.locator("#g-result .claim", has_text="directed by James Cameron")
    expect(supported).to_have_class(re.compile(r"tint-strong"))
    screenshot(page, "grounding")

    supported.locator("a.marker").first.click()
    cited = page.locator("#g-chunk-0")
    expect(cited).to_be_focused()
    expect(cited.locator("mark")).to_contain_text("James Cameron")


def test_given_a_narrow_screen_when_the_page_is_used_by_keyboard_then_it_fits(
    page: Page,
) -> None:
    page.set_viewport_size({"width": 390, "height": 800})
    page.get_by_role("tab", name="Ask").focus()

    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")

    grounding = page.get_by_role("tab", name="Check grounding")
    expect(grounding).to_be_focused()
    expect(grounding).to_have_attribute("aria-selected", "true")
    expect(page.get_by_role("tabpanel", name="Check grounding")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.get_by_role("tab", name="Ask").click()
    screenshot(page, "narrow")


def test_given_utf8_byte_offsets_when_converted_then_they_slice_the_right_text(
    page: Page,
) -> None:
    candidate = "Café ☕ au lait. Thé 🍵 vert."
    encoded = candidate.encode()
    start = encoded.index("Thé".encode())

    sliced = page.evaluate(
        """async ([candidate, start, end]) => {
            const { charRange } = await import("/static/grounding.js");
            const [from, to] = charRange(candidate, start, end);
            return candidate.slice(from, to);
        }""",
        [candidate, start, len(encoded)],
    )

    assert sliced == "Thé 🍵 vert."
