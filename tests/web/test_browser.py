"""The page driven the way a person uses it, in headless Chromium against the running app."""

from __future__ import annotations

import re
import uuid

from playwright.sync_api import Page, expect

from groundwork.domain.cards import Card
from groundwork.retrieval.factory import get_retriever
from groundwork.storage.factory import get_stores
from groundwork.storage.records import QuestionRecord
from tests.web.conftest import Site, screenshot


def _sign_in(page: Page, site: Site) -> None:
    page.get_by_label("API key").fill(site.key)
    page.get_by_role("button", name="Save").click()
    expect(page.locator("#api-key-help")).to_have_text("Saved in this browser.")


def _ask(page: Page, question: str, source: str | None = None) -> None:
    page.get_by_role("checkbox", name="Catechism").check()
    if source is not None:
        page.get_by_label("Source", exact=True).select_option(label=source)
    page.get_by_label("Question", exact=True).fill(question)
    page.get_by_role("button", name="Ask", exact=True).click()
    expect(page.locator("#ask-result .marker").first).to_be_visible()


def test_given_a_question_when_a_citation_is_opened_then_its_passage_shows(
    page: Page, site: Site
) -> None:
    _sign_in(page, site)
    _ask(page, "How many sacraments are there?", source="Baltimore Catechism")

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
    expect(page.locator("#ask-result .meta")).to_contain_text(re.compile(r"Confidence [01]\.\d\d"))
    expect(page.locator("#ask-result .meta")).to_contain_text("Citations back the text")
    screenshot(page, "ask")

    page.keyboard.press("Escape")
    expect(passage).to_be_hidden()
    expect(marker).to_be_focused()


def test_given_two_collections_when_picked_then_the_sources_follow_and_the_question_is_scoped(
    page: Page, site: Site
) -> None:
    _sign_in(page, site)
    catechism = page.get_by_role("checkbox", name="Catechism")
    hymns = page.get_by_role("checkbox", name="Hymns")
    source = page.get_by_label("Source", exact=True)
    sources = source.locator("option")
    expect(sources).to_have_text(["Any source", "Baltimore Catechism", "Adeste Fideles"])

    hymns.focus()
    page.keyboard.press("Space")
    expect(hymns).to_be_checked()
    expect(sources).to_have_text(["Any source", "Adeste Fideles"])
    catechism.check()
    expect(sources).to_have_text(["Any source", "Baltimore Catechism", "Adeste Fideles"])
    source.select_option(label="Baltimore Catechism")
    hymns.uncheck()
    expect(sources).to_have_text(["Any source", "Baltimore Catechism"])
    expect(source).to_have_value("baltimore")

    page.get_by_label("Question", exact=True).fill("What is Baptism?")
    with page.expect_request(lambda request: request.url.endswith("/v1/chat")) as sent:
        page.get_by_role("button", name="Ask", exact=True).click()
    expect(page.locator("#ask-result .answer")).to_contain_text("sanctifying grace")
    scope = sent.value.post_data_json["scope"]
    assert (scope["collections"], scope["source_id"]) == (["catechism"], "baltimore")

    # A source of a collection no longer chosen is not sent.
    hymns.check()
    catechism.uncheck()
    expect(source).to_have_value("")
    expect(sources).to_have_text(["Any source", "Adeste Fideles"])


def test_given_a_browser_with_nothing_stored_when_conversations_open_then_the_server_lists_them(
    page: Page, site: Site
) -> None:
    question = "Who made us, and what is prayer?"
    _sign_in(page, site)
    _ask(page, question)
    page.evaluate("localStorage.clear()")
    page.reload()
    page.wait_for_selector("body[data-ready=true]")
    _sign_in(page, site)

    page.get_by_role("tab", name="Conversations").click()

    entry = page.locator("#conv-list button", has_text=question)
    expect(entry).to_have_count(1)
    entry.click()
    expect(entry).to_have_attribute("aria-current", "true")
    expect(page.locator("#conv-feed .turn .question").first).to_have_text(question)


def test_given_more_conversations_than_a_page_when_older_ones_are_asked_for_then_they_follow(
    page: Page, site: Site
) -> None:
    # Another user: none of the reader's conversations may show up in this list.
    user = f"archivist-{uuid.uuid4().hex[:8]}"
    stores = get_stores(site.settings)
    stores.accounts.create_user(user, "Archivist")
    key = stores.accounts.issue_api_key(user)
    for n in range(23):
        stores.conversations.create_conversation(f"{user}-{n:02d}", user)
        stores.conversations.add_question(
            QuestionRecord(
                id=uuid.uuid4().int >> 75,
                conversation_id=f"{user}-{n:02d}",
                question=f"Archived question {n:02d}",
                answer_id=f"ans-{n}",
                answer="An answer.",
                created=0,
            )
        )
    _sign_in(page, Site(site.url, key, site.settings))

    page.get_by_role("tab", name="Conversations").click()

    entries = page.locator("#conv-list button")
    expect(entries).to_have_count(20)
    expect(entries.first).to_have_attribute("aria-current", "true")
    older = page.get_by_role("button", name="Show older conversations")
    older.click()
    expect(entries).to_have_count(23)
    expect(older).to_be_hidden()
    expect(entries.nth(20)).to_be_focused()
    titles = entries.evaluate_all("buttons => buttons.map(b => b.firstChild.textContent)")
    assert sorted(titles) == [f"Archived question {n:02d}" for n in range(23)]


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


def test_given_no_document_in_the_asked_language_when_answered_then_a_notice_says_so(
    page: Page, site: Site
) -> None:
    _sign_in(page, site)
    page.get_by_label("Language", exact=True).select_option("de")

    _ask(page, "How many sacraments are there?")

    expect(page.locator("#ask-result .language-notice")).to_have_text(
        "This answer is in English, not in German as asked."
    )
    expect(page.locator("#ask-result .meta")).to_contain_text("en")


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


def test_given_a_citation_with_a_script_url_when_its_passage_opens_then_no_link_runs_it(
    page: Page, site: Site
) -> None:
    """Given an index written before URLs were checked, holding a card whose source_url is
    ``javascript:``, when the reader opens its citation, then the URL is shown as text and no
    element of the page has it as an href."""
    user = f"mallory-{uuid.uuid4().hex[:8]}"
    collection = f"harbour-{user}"
    card = Card(
        id=f"{collection}-1",
        collection=collection,
        source_id=collection,
        text="The harbour gate opens at dawn for the fishing boats.",
        title="Harbour rules",
        url="javascript:window.stolen=localStorage.getItem('groundwork.apiKey')",
        position=0,
    )
    get_retriever(site.settings).upsert([card])
    stores = get_stores(site.settings)
    stores.accounts.create_user(user, "Mallory")
    stores.accounts.create_collection(collection, "Harbour")
    stores.accounts.grant(user, collection)
    _sign_in(page, Site(site.url, stores.accounts.issue_api_key(user), site.settings))

    page.get_by_label("Question", exact=True).fill("When does the harbour gate open?")
    page.get_by_role("button", name="Ask", exact=True).click()
    page.locator("#ask-result .marker").first.click()

    passage = page.locator("#ask-result .passage")
    expect(passage).to_contain_text("javascript:window.stolen")
    expect(passage.locator("a")).to_have_count(0)
    hrefs = page.evaluate("[...document.querySelectorAll('[href]')].map(e => e.href)")
    assert not [href for href in hrefs if not href.startswith(("http:", "https:"))]
    passage.get_by_text("javascript:window.stolen").click()
    assert page.evaluate("window.stolen") is None


def test_given_source_urls_when_checked_by_the_page_then_only_http_and_relative_are_links(
    page: Page,
) -> None:
    urls = [
        "https://example.org/a#b",
        "guide/tides.md#spring",
        "/docs/a",
        "javascript:alert(1)",
        " JAVASCRIPT:alert(1)",
        "java\tscript:alert(1)",
        "data:text/html,<script>alert(1)</script>",
        "vbscript:msgbox(1)",
    ]

    checked = page.evaluate(
        """async (urls) => {
            const { safeHref } = await import("/static/answer.js");
            return urls.map((url) => safeHref(url));
        }""",
        urls,
    )

    base = page.url.rsplit("/", 1)[0]
    assert checked == [
        "https://example.org/a#b",
        f"{base}/guide/tides.md#spring",
        f"{base}/docs/a",
        None,
        None,
        None,
        None,
        None,
    ]


def test_given_the_csp_when_markup_with_an_inline_handler_is_injected_then_it_does_not_run(
    page: Page,
) -> None:
    page.evaluate(
        """() => new Promise((done) => {
            const box = document.createElement("div");
            box.innerHTML = '<img src="/nothing.png" onerror="window.ran = true">';
            document.body.append(box);
            setTimeout(done, 300);
        })"""
    )

    assert page.evaluate("window.ran") is None
