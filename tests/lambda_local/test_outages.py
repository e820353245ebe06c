"""Backends that die (SIGKILL) or hang (SIGSTOP), under the app and under the deployed shape
(``groundwork serve --lambda``'s functions, router and Web Adapter): every route of the app,
and a route of each kind of every function of the deployed shape, answers 503 with the
backend's code within its bound, ``/health`` stays up, a stream that had started ends with the
code as its error event, and once the backend is back the same requests answer again, without
a restart.

The backends are real processes: a moto server of this module's own, and the local
OpenSearch node of ``scripts/services.sh`` (resumed after each hang; after its kill, started
again with its own command line, the same data and port). The bounds are the defaults:
OpenSearch reads 3 s an attempt, 6 s in all; DynamoDB 2 s an attempt, 4.5 s in all.
"""

from __future__ import annotations

import json
import os
import time
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from botocore.exceptions import ClientError

from groundwork.api.app import create_app
from groundwork.local_lambda.router import Gateway
from groundwork.local_lambda.stack import NotBuilt, running
from groundwork.retrieval.factory import get_retriever
from groundwork.settings import Settings
from groundwork.storage.dynamodb_table import DynamoTable
from groundwork.storage.errors import StorageUnavailable
from groundwork.storage.factory import get_stores
from tests.backends import MotoServer, OpenSearchNode
from tests.chat.fixtures import World, ask, bearer, seed
from tests.conftest import unavailable
from tests.lambda_local.conftest import TOOLS, _serve
from tests.serving import served

#: The bound of each code (docs/retrieval.md, docs/storage.md) and what a loaded machine adds.
MARGIN_S = 3.0
BOUND_S = {"retrieval.unavailable": 6.0 + MARGIN_S, "storage.unavailable": 4.5 + MARGIN_S}
#: How long the service may take to answer again once its backend is back: a cool-down (2 s)
#: and a probe, on a loaded machine.
RECOVERY_S = 30.0
AWS = {
    "AWS_DEFAULT_REGION": "us-east-1",
    "AWS_REGION": "us-east-1",
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
}


@dataclass(frozen=True)
class Route:
    method: str
    path: str
    body: dict[str, Any] | None = None
    #: It searches the passage index (the others only read storage, or nothing).
    retrieval: bool = False
    keyed: bool = True
    #: Asked of the deployed shape too: one route of each kind per function (the API
    #: function's other routes run the same app as the first surface, on the same code path).
    deployed: bool = True


def routes(question_id: int) -> list[Route]:
    question = "How many sacraments are there?"
    completion = {"model": "groundwork-1", "messages": [{"role": "user", "content": question}]}
    check = {"answerCandidate": "There are seven sacraments.", "facts": [{"factText": "Seven."}]}
    return [
        Route("GET", "/health", keyed=False),
        Route("GET", "/v1/models", deployed=False),
        Route("GET", "/v1/models/groundwork-1", deployed=False),
        Route("POST", "/v1/chat/completions", completion, retrieval=True),
        Route("POST", "/v1/chat/completions", completion | {"stream": True}, retrieval=True),
        Route("POST", "/v1/search", {"query": question}, retrieval=True),
        Route("POST", "/v1/chat", ask(question), retrieval=True),
        Route("POST", "/v1/chat", ask(question, stream=True), retrieval=True),
        Route("GET", "/v1/collections"),
        Route("GET", "/v1/conversations", deployed=False),
        Route("GET", "/v1/conversations/c-out", deployed=False),
        Route("GET", "/v1/conversations/c-out/feed"),
        Route(
            "POST", "/v1/conversations/c-out/versions", {"question_id": question_id}, deployed=False
        ),
        Route("POST", "/v1/scope/resolve", {"collection": "catechism"}),
        Route("GET", "/v1/starters", deployed=False),
        Route("POST", "/v1/grounding:check", check, deployed=False),
        Route("POST", "/v1/projects/p/locations/l/groundingConfigs/c:check", check),
    ]


@dataclass
class Answer:
    status: int
    code: str | None
    seconds: float
    retry_after: str | None


@dataclass
class Surface:
    """The app or the deployed shape, with the world it serves."""

    name: str
    url: str
    world: World
    settings: Settings
    question_id: int = 0
    baseline: dict[int, int] = field(default_factory=dict)

    def call(self, route: Route) -> Answer:
        started = time.monotonic()
        headers = bearer(self.world.keys["alice"]) if route.keyed else {}
        response = httpx.request(
            route.method, f"{self.url}{route.path}", json=route.body, headers=headers, timeout=60
        )
        seconds = time.monotonic() - started
        code = None
        if response.status_code >= 400:
            code = response.json()["error"]["code"]
        return Answer(response.status_code, code, seconds, response.headers.get("retry-after"))

    def routes(self) -> list[Route]:
        return [r for r in routes(self.question_id) if self.name == "app" or r.deployed]


def _populate(surface: Surface) -> None:
    """The surface's world, unless its table holds it: after moto's kill the table, users,
    keys, sources and a conversation with one question (asked through the surface itself) are
    made again. The service keeps its clients, as it would if DynamoDB came back."""
    key = surface.world.keys.get("alice")
    deadline = time.monotonic() + RECOVERY_S
    while True:
        try:
            if key and get_stores(surface.settings).accounts.authenticate(key) is not None:
                return
            break
        except StorageUnavailable:  # the circuit is still open: DynamoDB just came back
            assert time.monotonic() < deadline, "the storage never answered again"
            time.sleep(0.5)
        except ClientError:  # the table is gone with moto's memory
            break
    settings = surface.settings
    DynamoTable(
        settings.dynamodb_table, endpoint_url=settings.dynamodb_endpoint_url, region="us-east-1"
    ).create()
    surface.world = seed(settings)
    while True:
        done = httpx.post(
            f"{surface.url}/v1/chat",
            json=ask("What is prayer?", conversation_id="c-out"),
            headers=bearer(surface.world.keys["alice"]),
            timeout=120,
        )
        # The deployed shape's functions keep their own circuits, still open for a moment
        # after DynamoDB came back: a client retries after the Retry-After it was given.
        if done.status_code != 503 or time.monotonic() > deadline:
            break
        time.sleep(float(done.headers.get("Retry-After", "1")))
    assert done.status_code == 200, done.text
    surface.question_id = done.json()["question_id"]


def _settings(moto: MotoServer, data_dir: Path, index: str, table: str, **extra: Any) -> Settings:
    return Settings(
        data_dir=data_dir,
        bootstrap_docs=False,
        storage="dynamodb",
        dynamodb_table=table,
        dynamodb_endpoint_url=moto.url,
        dynamodb_region="us-east-1",
        dynamodb_create_table=True,
        retrieval="opensearch",
        opensearch_url=os.environ["GROUNDWORK_OPENSEARCH_URL"],
        opensearch_knn_engine="lucene",
        opensearch_index=index,
        require_api_key=True,
        default_collection="catechism",
        **extra,
    )


@pytest.fixture(scope="module")
def node() -> OpenSearchNode:
    url = os.environ.get("GROUNDWORK_OPENSEARCH_URL")
    if not url:
        unavailable("GROUNDWORK_OPENSEARCH_URL is not set: run `eval $(scripts/services.sh up)`")
    try:
        return OpenSearchNode(url)
    except (OSError, KeyError, ValueError) as error:
        unavailable(f"the OpenSearch node at {url} is not a process of this machine: {error}")


@pytest.fixture(scope="module")
def moto() -> Iterator[MotoServer]:
    with pytest.MonkeyPatch.context() as patch:
        for name, value in AWS.items():
            patch.setenv(name, value)
        patch.delenv("AWS_PROFILE", raising=False)
        server = MotoServer()
        try:
            yield server
        finally:
            server.stop()


@pytest.fixture(scope="module")
def index_name() -> str:
    return f"groundwork-outages-{uuid.uuid4().hex[:8]}"


@pytest.fixture(scope="module")
def app(
    moto: MotoServer,
    node: OpenSearchNode,
    index_name: str,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Surface]:
    settings = _settings(moto, tmp_path_factory.mktemp("outage-app"), index_name, "outage-app")
    with served(create_app(settings)) as url:
        surface = Surface("app", url, World(settings), settings)
        _populate(surface)
        _wait_searchable(settings)
        yield surface


def _wait_searchable(settings: Settings) -> None:
    deadline = time.monotonic() + 30
    while get_retriever(settings).count("catechism") == 0:
        assert time.monotonic() < deadline, "the seeded cards never became searchable"
        time.sleep(0.2)


@pytest.fixture(scope="module")
def deployed(
    request: pytest.FixtureRequest,
    moto: MotoServer,
    node: OpenSearchNode,
    index_name: str,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Surface]:
    """The functions of the build under the emulator, on this module's moto and the node."""
    build = request.getfixturevalue("lambda_build")
    data_dir = tmp_path_factory.mktemp("outage-lambda")
    settings = _settings(moto, data_dir, index_name, "outage-lambda")
    overrides = {
        **AWS,
        "AWS_ENDPOINT_URL": moto.url,
        "GROUNDWORK_DATA_DIR": str(data_dir),
        "GROUNDWORK_STORAGE": "dynamodb",
        "GROUNDWORK_DYNAMODB_TABLE": settings.dynamodb_table,
        "GROUNDWORK_DYNAMODB_ENDPOINT_URL": moto.url,
        "GROUNDWORK_DYNAMODB_REGION": "us-east-1",
        "GROUNDWORK_DYNAMODB_CREATE_TABLE": "true",
        "GROUNDWORK_RETRIEVAL": "opensearch",
        "GROUNDWORK_OPENSEARCH_URL": node.url,
        "GROUNDWORK_OPENSEARCH_AUTH": "none",
        "GROUNDWORK_OPENSEARCH_KNN_ENGINE": "lucene",
        "GROUNDWORK_OPENSEARCH_INDEX": index_name,
        "GROUNDWORK_REQUIRE_API_KEY": "true",
        "GROUNDWORK_DEFAULT_COLLECTION": "catechism",
    }
    try:
        context = running(build, TOOLS, overrides)
        environments = context.__enter__()
    except NotBuilt as error:
        unavailable(str(error))
    try:
        server, thread, port = _serve(Gateway(environments))
        try:
            surface = Surface("lambda", f"http://127.0.0.1:{port}/prod", World(settings), settings)
            _populate(surface)
            yield surface
        finally:
            server.should_exit = True
            thread.join(timeout=10)
    finally:
        context.__exit__(None, None, None)


@pytest.fixture(params=["app", "lambda"])
def surface(request: pytest.FixtureRequest) -> Surface:
    chosen: Surface = request.getfixturevalue("app" if request.param == "app" else "deployed")
    _populate(chosen)  # again if a kill of moto in an earlier test took it
    if not chosen.baseline:
        chosen.baseline = {i: chosen.call(r).status for i, r in enumerate(chosen.routes())}
        assert all(status < 500 for status in chosen.baseline.values()), chosen.baseline
    return chosen


def searching(route: Route) -> bool:
    return route.retrieval


def keyed(route: Route) -> bool:
    return route.keyed


def assert_unavailable(surface: Surface, code: str, *, affected: Callable[[Route], bool]) -> None:
    """Every affected route 503 with ``code`` and a Retry-After, within the code's bound; the
    others as when all was well."""
    for i, route in enumerate(surface.routes()):
        answer = surface.call(route)
        where = (surface.name, route.method, route.path, answer)
        assert answer.seconds < BOUND_S[code], where
        if affected(route):
            assert (answer.status, answer.code) == (503, code), where
            assert answer.retry_after is not None, where
            assert 1 <= int(answer.retry_after) <= 10, where
        else:
            assert answer.status == surface.baseline[i], where


def assert_recovers(surface: Surface, *, affected: Callable[[Route], bool]) -> None:
    """The routes the outage took answer as before it, within ``RECOVERY_S``."""
    deadline = time.monotonic() + RECOVERY_S
    pending = {i: route for i, route in enumerate(surface.routes()) if affected(route)}
    while pending:
        for i, route in list(pending.items()):
            if surface.call(route).status == surface.baseline[i]:
                del pending[i]
        if pending:
            assert time.monotonic() < deadline, (surface.name, [r.path for r in pending.values()])
            time.sleep(0.5)


def test_given_a_hung_opensearch_then_searching_routes_503_within_the_bound_and_recover(
    surface: Surface, node: OpenSearchNode
) -> None:
    node.hang()
    try:
        assert_unavailable(surface, "retrieval.unavailable", affected=searching)
    finally:
        node.resume()
    assert_recovers(surface, affected=searching)


def test_given_a_hung_dynamodb_then_every_keyed_route_503_within_the_bound_and_recovers(
    surface: Surface, moto: MotoServer
) -> None:
    moto.hang()
    try:
        assert_unavailable(surface, "storage.unavailable", affected=keyed)
    finally:
        moto.resume()
    assert_recovers(surface, affected=keyed)


def test_given_a_killed_dynamodb_then_every_keyed_route_503_at_once_and_recovers_when_back(
    surface: Surface, moto: MotoServer
) -> None:
    moto.kill()
    try:
        assert_unavailable(surface, "storage.unavailable", affected=keyed)
    finally:
        moto.start()  # empty: the table, users and the conversation are made again
    _populate(surface)
    assert_recovers(surface, affected=keyed)


def test_given_a_stream_under_way_when_opensearch_hangs_then_it_ends_with_the_code_as_its_error(
    moto: MotoServer, node: OpenSearchNode, index_name: str, app: Surface, tmp_path: Path
) -> None:
    """A keep-alive shorter than the bound: the stream starts before the search fails (no
    response cache: its key counts the collection's cards, a search before the stream)."""
    _populate(app)
    settings = app.settings.model_copy(
        update={"stream_keep_alive_s": 0.5, "chat_cache_ttl_seconds": 0}
    )
    key = bearer(app.world.keys["alice"])
    completion = {
        "model": "groundwork-1",
        "messages": [{"role": "user", "content": "What is prayer?"}],
        "stream": True,
    }
    with served(create_app(settings)) as url, ThreadPoolExecutor(2) as pool:
        node.hang()
        try:
            # At once: the first search to fail opens the circuit, and a request started after
            # it would fail before its stream starts.
            chat_sent = pool.submit(
                httpx.post, f"{url}/v1/chat", json=ask("Who made us?", stream=True),
                headers=key, timeout=60,
            )  # fmt: skip
            completions_sent = pool.submit(
                httpx.post, f"{url}/v1/chat/completions", json=completion, headers=key, timeout=60
            )
            chat, completions = chat_sent.result(), completions_sent.result()
        finally:
            node.resume()

    assert chat.status_code == completions.status_code == 200
    assert ": keep-alive" in chat.text
    error = json.loads(chat.text.split("event: error\ndata: ")[1].split("\n")[0])
    assert error["error"]["code"] == "retrieval.unavailable"
    chunks = [line[6:] for line in completions.text.splitlines() if line.startswith("data: {")]
    assert json.loads(chunks[-1])["error"]["code"] == "retrieval.unavailable"


def test_given_a_killed_opensearch_then_searching_routes_503_at_once_and_recover_when_back(
    request: pytest.FixtureRequest, app: Surface, node: OpenSearchNode
) -> None:
    """One kill for both surfaces (the node takes tens of seconds to start again)."""
    surfaces = [app]
    if os.environ.get("CI") == "true" or (TOOLS / "sam-build" / "functions.json").is_file():
        surfaces.append(request.getfixturevalue("deployed"))
    for surface in surfaces:
        _populate(surface)
        if not surface.baseline:
            surface.baseline = {i: surface.call(r).status for i, r in enumerate(surface.routes())}
    node.kill()
    try:
        for surface in surfaces:
            assert_unavailable(surface, "retrieval.unavailable", affected=searching)
    finally:
        node.restart()
    for surface in surfaces:
        assert_recovers(surface, affected=searching)
