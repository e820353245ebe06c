"""The page under a stage path, as API Gateway serves it (``https://…/prod/``): its assets and
its API calls resolve under that path, where anything outside it is refused with 403."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, expect

from groundwork.api.app import create_app
from groundwork.settings import Settings
from tests.serving import served
from tests.web.conftest import WIDE, _seed

STAGE = "/prod"


class Stage:
    """API Gateway in front of the app: paths under the stage reach it without the stage,
    every other path gets API Gateway's 403."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.refused: list[str] = []

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            path = scope["path"]
            if not path.startswith(f"{STAGE}/"):
                self.refused.append(path)
                body = json.dumps({"message": "Missing Authentication Token"}).encode()
                headers = [(b"content-type", b"application/json")]
                await send({"type": "http.response.start", "status": 403, "headers": headers})
                await send({"type": "http.response.body", "body": body})
                return
            inner = path[len(STAGE) :]
            scope = scope | {"path": inner, "raw_path": inner.encode()}
        await self.app(scope, receive, send)


@pytest.fixture(scope="module")
def staged(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str, Stage]]:
    settings = Settings(
        data_dir=tmp_path_factory.mktemp("stage") / "data",
        bootstrap_docs=False,
        retrieval="keyword",
    )
    key = _seed(settings)
    stage = Stage(create_app(settings))
    with served(stage) as url:
        yield f"{url}{STAGE}/", key, stage


def test_given_the_page_under_a_stage_path_then_its_assets_and_api_calls_stay_under_it(
    browser: Browser, staged: tuple[str, str, Stage], tmp_path: Path
) -> None:
    url, key, stage = staged
    context = browser.new_context(viewport=WIDE)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.set_default_timeout(10_000)
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))

    page.goto(url)
    page.wait_for_selector("body[data-ready=true]")
    page.get_by_label("API key").fill(key)
    page.get_by_role("button", name="Save").click()
    page.get_by_role("checkbox", name="Catechism").check()
    page.get_by_label("Question", exact=True).fill("How many sacraments are there?")
    page.get_by_role("button", name="Ask", exact=True).click()
    expect(page.locator("#ask-result .marker").first).to_be_visible()
    context.close()

    assert not errors
    assert [path for path in stage.refused if path != "/favicon.ico"] == []  # the browser's own
    assert f"{url}static/app.js" in requested
    assert f"{url}static/style.css" in requested
    assert f"{url}v1/collections" in requested
    assert f"{url}v1/chat" in requested
    host = url.removesuffix(f"{STAGE}/")
    assert all(r.startswith(url) for r in requested if r.startswith(host))
