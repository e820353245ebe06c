"""The page and its assets are served by the app, beside the API's JSON errors."""

from __future__ import annotations

from html.parser import HTMLParser

from fastapi.testclient import TestClient


def test_given_the_app_when_root_is_fetched_then_the_page_is_served(client: TestClient) -> None:
    response = client.get("/")

    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    # Relative: under API Gateway the page is at …/{stage}/, and so are its assets.
    assert '<script type="module" src="static/app.js">' in response.text


def test_given_the_page_when_its_modules_are_fetched_then_each_is_javascript(
    client: TestClient,
) -> None:
    for name in (
        "app.js",
        "api.js",
        "answer.js",
        "ask.js",
        "conversations.js",
        "grounding.js",
        "scope.js",
        "starters.js",
    ):
        response = client.get(f"/static/{name}")
        assert response.status_code == 200, name
        assert response.headers["content-type"].startswith("text/javascript")
    assert client.get("/static/style.css").headers["content-type"].startswith("text/css")


def test_given_unknown_paths_when_fetched_then_the_api_json_404_is_kept(
    client: TestClient,
) -> None:
    for path in (
        "/v1/nothing",
        "/static/missing.js",
        "/static/__init__.py",
        "/static/..%2Frouter.py",
    ):
        response = client.get(path)
        assert response.status_code == 404, path
        assert response.json()["error"]["code"] == "route.not_found", path


class _Inline(HTMLParser):
    """Inline script in markup: ``<script>`` with a body, ``on*`` handlers, ``javascript:``."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._in_script = tag == "script"
        for name, value in attrs:
            if name.startswith("on") or (value or "").strip().lower().startswith("javascript:"):
                self.found.append(f"<{tag} {name}>")

    def handle_data(self, data: str) -> None:
        if self._in_script and data.strip():
            self.found.append(f"<script>{data.strip()[:40]}")

    def handle_endtag(self, tag: str) -> None:
        self._in_script = False


def test_given_the_page_when_parsed_then_it_has_no_inline_script(client: TestClient) -> None:
    parser = _Inline()
    parser.feed(client.get("/").text)

    assert parser.found == []


def test_given_the_page_and_the_api_when_fetched_then_a_strict_csp_comes_with_each(
    client: TestClient,
) -> None:
    for response in (
        client.get("/"),
        client.get("/static/answer.js"),
        client.get("/health"),
        client.post("/v1/search", json={"query": ""}),
        client.get("/v1/nothing"),
    ):
        policy = response.headers.get("content-security-policy", "")
        directives = {d.split()[0]: d.split()[1:] for d in policy.split("; ") if d}
        assert directives.get("default-src") == ["'self'"], response.url
        assert directives.get("script-src") == ["'self'"], response.url
        assert directives.get("object-src") == ["'none'"], response.url
        assert "'unsafe-inline'" not in policy
        assert response.headers["x-content-type-options"] == "nosniff"


def test_given_fastapis_docs_page_when_fetched_then_it_is_served_without_the_policy(
    client: TestClient,
) -> None:
    """Swagger UI loads from a CDN with an inline script: the policy would blank it."""
    response = client.get("/docs")

    assert response.status_code == 200
    assert "content-security-policy" not in response.headers
