"""A new user's first run, as the README tells it: `groundwork serve` on the embedded defaults
(what ``./scripts/run.sh`` execs once the environment is set up) serves at once and indexes the
documentation beside it on its first start, saying so (on stderr, in ``/health`` and in the
page, until it is done), and the page at ``/`` answers the
README's own question with no API key. The documentation is the repository's README alone, so
that the first start embeds tens of passages rather than the hundreds of every doc; what it
serves is the command's own."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, expect

from groundwork.local_lambda.emulator import free_port
from tests.conftest import checkout
from tests.web.conftest import opened_page

#: Seconds the first start may take to serve, and to index the README (tens of seconds under
#: load).
STARTUP_S = 300


@pytest.fixture
def first_run(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """`groundwork serve` on a fresh machine's state: its URL and the file it logs to."""
    docs = checkout(tmp_path / "checkout")
    # A fresh machine: none of the test run's own configuration (the live services' exports).
    env = {k: v for k, v in os.environ.items() if not k.startswith("GROUNDWORK_")}
    env.update(GROUNDWORK_DATA_DIR=str(tmp_path / "data"), GROUNDWORK_DOCS_DIR=str(docs))
    port = free_port()
    log = tmp_path / "serve.log"
    command = Path(sys.executable).parent / "groundwork"
    with log.open("wb") as out:
        served = subprocess.Popen(
            [str(command), "serve", "--port", str(port)],
            env=env,
            cwd=tmp_path,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + STARTUP_S
        while True:
            if served.poll() is not None:
                pytest.fail(f"groundwork serve exited {served.returncode}: {log.read_text()}")
            try:
                httpx.get(f"{url}/", timeout=2)
                break
            except httpx.TransportError:
                if time.monotonic() > deadline:
                    pytest.fail(f"groundwork serve did not start: {log.read_text()}")
                time.sleep(0.5)
        yield url, log
    finally:
        served.terminate()
        served.wait(10)


def test_given_a_first_run_when_the_readme_question_is_asked_in_the_page_then_it_is_answered(
    browser: Browser, first_run: tuple[str, Path]
) -> None:
    url, log = first_run
    # Served at once, the README going in beside it (tens of seconds of embedding).
    indexing = httpx.get(f"{url}/health").json()["indexing"]
    assert indexing == {"collection": "default", "documents": 1, "done": 0}

    with opened_page(browser, url + "/") as page:
        status = page.locator("#indexing")
        expect(status).to_contain_text("Indexing the docs into default: 0 of 1 documents in.")
        deadline = time.monotonic() + STARTUP_S
        while "groundwork: indexed 1 documents" not in (said := log.read_text()):
            assert time.monotonic() < deadline, f"the README was not indexed: {said}"
            time.sleep(0.5)
        expect(status).to_be_hidden(timeout=10_000)

        assert "into `default` (first start)" in said
        assert "[1/1] README.md:" in said
        assert "needs no API key" in said
        assert said.index("Application startup complete") < said.index("indexed 1 documents")
        expect(page.get_by_role("checkbox", name="default")).to_be_visible()
        page.get_by_label("Question", exact=True).fill("How do I run the tests?")
        page.get_by_role("button", name="Ask", exact=True).click()
        result = page.locator("#ask-result")
        # The first answer loads the model: seconds on a loaded machine.
        expect(result.locator(".marker").first).to_be_visible(timeout=60_000)
        expect(result).to_contain_text("./scripts/test.sh")
        result.locator(".marker").first.click()
        expect(result.locator(".passage")).to_contain_text("README")
