"""The app on a real port over a tiny collection, and headless Chromium to drive the page.

Chromium is Debian's (``/usr/bin/chromium``); ``scripts/test.sh`` installs it when it can.
Screenshots go to ``tests/out/``, and into ``docs/images/`` with
``GROUNDWORK_UPDATE_SCREENSHOTS=1``.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, sync_playwright

from groundwork.api.app import create_app
from groundwork.domain.cards import Card
from groundwork.retrieval.factory import get_retriever
from groundwork.settings import Settings
from groundwork.storage.base import SourceRecord
from groundwork.storage.factory import get_storage, get_stores
from tests.serving import served

REPO = Path(__file__).resolve().parents[2]
OUT = REPO / "tests" / "out"
DOCS_IMAGES = REPO / "docs" / "images"
LAUNCH_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
#: The docs' screenshots are this wide; the narrow one shows the phone layout.
WIDE = {"width": 1000, "height": 760}

CATECHISM = [
    ("1", "Who made us?", "God made us."),
    ("3", "What is prayer?", "Prayer is the lifting up of our minds and hearts to God."),
    (
        "152",
        "How many sacraments are there?",
        "There are seven sacraments: Baptism, Confirmation, Holy Eucharist, Penance, "
        "Anointing of the Sick, Holy Orders, and Matrimony.",
    ),
    (
        "154",
        "What is Baptism?",
        "Baptism is the sacrament that gives our souls the new life of sanctifying grace.",
    ),
]
#: A second collection, so that the source picker has sources to filter.
HYMN = "O come, all ye faithful, joyful and triumphant, O come ye to Bethlehem."


def chromium_path() -> str | None:
    found = Path("/usr/bin/chromium")
    return str(found) if found.is_file() else shutil.which("chromium")


@dataclass
class Site:
    url: str
    key: str
    settings: Settings


def _seed(settings: Settings) -> str:
    """Cards and sources of two collections, and the user ``reader`` who may see both."""
    hymn = Card(
        id="hymns-adeste",
        collection="hymns",
        source_id="adeste",
        text=HYMN,
        heading="Adeste Fideles",
        title="Adeste Fideles",
        url="https://example.org/hymns/adeste",
        position=0,
    )
    catechism = [
        Card(
            id=f"catechism-{reference}",
            collection="catechism",
            source_id="baltimore",
            text=answer,
            heading=question,
            reference=reference,
            title="Baltimore Catechism",
            author="Third Plenary Council of Baltimore",
            year="1885",
            url=f"https://example.org/catechism#{reference}",
            tags=["sacraments"] if "sacrament" in answer else [],
            position=n,
        )
        for n, (reference, question, answer) in enumerate(CATECHISM)
    ]
    get_retriever(settings).upsert([*catechism, hymn])
    storage = get_storage(settings)
    storage.put_source(
        SourceRecord(
            id="baltimore",
            collection="catechism",
            title="Baltimore Catechism",
            location="https://example.org/catechism",
            content_hash="baltimore",
            cards=len(CATECHISM),
        )
    )
    storage.put_source(
        SourceRecord(
            id="adeste",
            collection="hymns",
            title="Adeste Fideles",
            location=hymn.url,
            content_hash="adeste",
            cards=1,
        )
    )
    accounts = get_stores(settings).accounts
    accounts.create_user("reader", "Reader")
    for name, title in (("catechism", "Catechism"), ("hymns", "Hymns")):
        accounts.create_collection(name, title)
        accounts.grant("reader", name)
    return accounts.issue_api_key("reader")


@contextmanager
def opened_page(browser: Browser, url: str) -> Iterator[Page]:
    """The page at ``url``, ready; a script error it threw fails the test."""
    context = browser.new_context(viewport=WIDE)
    opened = context.new_page()
    errors: list[str] = []
    opened.on("pageerror", lambda error: errors.append(str(error)))
    opened.set_default_timeout(10_000)
    opened.goto(url)
    opened.wait_for_selector("body[data-ready=true]")
    yield opened
    context.close()
    assert not errors, f"the page threw: {errors}"


@pytest.fixture(scope="session")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    settings = Settings(
        data_dir=tmp_path_factory.mktemp("web") / "data", bootstrap_docs=False, retrieval="keyword"
    )
    key = _seed(settings)
    with served(create_app(settings)) as url:
        yield Site(url, key, settings)


# Per module, not per session: while Playwright's sync API runs, its event loop counts as running
# in this thread, and a later test that runs a loop of its own (Mangum's handler) would fail.
@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    executable = chromium_path()
    if executable is None:
        reason = "no chromium binary: install Debian's `chromium` (scripts/test.sh does, as root)"
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI runs the page's browser tests; {reason}")
        pytest.skip(reason)
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=executable, args=LAUNCH_ARGS)
        yield launched
        launched.close()


@pytest.fixture
def page(browser: Browser, site: Site) -> Iterator[Page]:
    with opened_page(browser, site.url + "/") as opened:
        yield opened


def screenshot(page: Page, name: str) -> Path:
    """Saves ``name``.png in tests/out/, and in docs/images/ when updating the docs."""
    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    if os.environ.get("GROUNDWORK_UPDATE_SCREENSHOTS") == "1":
        DOCS_IMAGES.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, DOCS_IMAGES / path.name)
    return path
