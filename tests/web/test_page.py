"""The page and its assets are served by the app, beside the API's JSON errors."""

from __future__ import annotations

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
