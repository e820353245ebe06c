"""A seeded randomised test of grants, documents, tags and questions: no search hit, citation,
starter, listed source, cached or replayed answer, nor turn of a feed ever comes from a card
its user can't see, and searches keep every visible card they should find.

One world is ingested per stack (the index is the expensive part): ten JSONL documents whose
rows are questions with their answers, each row with its own random tags. Each seeded case
then draws users with random grants (whole, some tags, some sources, both, none) and random
questions, asks them through every route, narrows or widens a grant, and asks again. What a
user may see is computed here, from the generated rows and grants, not by the service.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from typing import Any

import pytest
from fastapi.testclient import TestClient

from groundwork.retrieval.base import SearchFilter
from groundwork.storage.factory import get_stores
from tests.access.conftest import Stack, app_client


@dataclass(frozen=True)
class Size:
    cases: int
    users: int
    questions: int


#: Per stack: DynamoDB through moto costs tens of ms a call, so the cloud stack runs one small
#: case (the visibility contracts of both backends cover the rest).
SIZES = {"sqlite+embedded": Size(4, 3, 3), "dynamodb+opensearch": Size(1, 2, 2)}
TAGS = ("public", "engineering", "hr", "board")
TOPICS = ("budget", "merger", "office", "release", "hiring", "audit", "travel", "training")
NAMES = (
    "kestrel heron osprey plover curlew dunlin gannet puffin merlin avocet lapwing bittern "
    "siskin linnet wigeon shrike warbler bunting starling swift egret godwit redstart "
    "nuthatch treecreeper wagtail fieldfare redwing goldcrest whimbrel"
).split()


@dataclass(frozen=True)
class Row:
    """One generated passage: its card's collection, file, tags and words."""

    collection: str
    file: str
    tags: tuple[str, ...]
    question: str
    text: str

    @property
    def url(self) -> str:
        return f"{self.file}#{self.question.split()[-1].rstrip('?')}"


@dataclass(frozen=True)
class Grant:
    """``None`` tags and sources: the whole collection."""

    tags: tuple[str, ...] = ()
    files: tuple[str, ...] = ()

    def sees(self, row: Row) -> bool:
        if not self.tags and not self.files:
            return True
        return row.file in self.files or bool(set(row.tags) & set(self.tags))


def generate(rng: random.Random) -> list[Row]:
    names = iter(rng.sample(NAMES, len(NAMES)))
    rows = []
    for collection, files, tagged in (("kb", 8, True), ("extra", 2, False)):
        for number in range(files):
            file = f"{collection}-{number}.jsonl"
            # Three rows a document: as few as make it Q/A-shaped, so each proposes starters.
            for _ in range(3):
                name = next(names)
                topic, other = rng.sample(TOPICS, 2)
                tags = tuple(sorted(rng.sample(TAGS, rng.choice([0, 1, 1, 2])))) if tagged else ()
                question = f"What is the {topic} plan of {name}?"
                text = f"{question} The {topic} plan of {name} covers the {other} of the team."
                rows.append(Row(collection, file, tags, question, text))
    return rows


@pytest.fixture(scope="module")
def world(stack: Stack, tmp_path_factory: pytest.TempPathFactory) -> tuple[Stack, list[Row]]:
    rows = generate(random.Random(26))
    for collection in ("kb", "extra"):
        folder = tmp_path_factory.mktemp(collection)
        for row in rows:
            if row.collection == collection:
                line = {"text": row.text, "tags": list(row.tags), "url": row.url}
                with (folder / row.file).open("a") as out:
                    out.write(json.dumps(line) + "\n")
        stack.ingest(folder, collection)
        get_stores(stack.settings).accounts.create_collection(collection)
    return stack, rows


@pytest.fixture(scope="module")
def client(world: tuple[Stack, list[Row]]) -> Any:
    yield from app_client(world[0])


def random_grants(rng: random.Random, files: list[str]) -> dict[str, Grant]:
    kind = rng.choice(["whole", "tags", "sources", "both", "none"])
    grants: dict[str, Grant] = {}
    if kind != "none":
        tags = tuple(rng.sample(TAGS, rng.randint(1, 2))) if kind in ("tags", "both") else ()
        chosen = tuple(rng.sample(files, rng.randint(1, 2))) if kind in ("sources", "both") else ()
        grants["kb"] = Grant(tags, chosen)
    if kind == "none" or rng.random() < 0.5:
        grants["extra"] = Grant()
    return grants


def apply(stack: Stack, user: str, grants: dict[str, Grant], ids: dict[str, str]) -> None:
    accounts = get_stores(stack.settings).accounts
    for collection in ("kb", "extra"):
        accounts.revoke(user, collection)
        if collection in grants:
            grant = grants[collection]
            sources = [ids[file] for file in grant.files]
            accounts.grant(user, collection, tags=grant.tags, source_ids=sources)


def question(rng: random.Random, rows: list[Row]) -> str:
    row = rng.choice(rows)
    if rng.random() < 0.6:  # about one card, which the user may not see
        return row.question
    return f"Which {rng.choice(TOPICS)} and {rng.choice(TOPICS)} plans are there?"


def test_given_random_grants_and_questions_then_nothing_comes_from_a_hidden_card(
    world: tuple[Stack, list[Row]], client: TestClient
) -> None:
    stack, rows = world
    size = SIZES[stack.name]
    for seed in range(size.cases):  # the users of case N are named caseN-u…
        run_case(stack, rows, client, size, seed)


def run_case(stack: Stack, rows: list[Row], client: TestClient, size: Size, seed: int) -> None:
    rng = random.Random(seed)
    ids = {**stack.source_ids("kb"), **stack.source_ids("extra")}
    by_url = {row.url: row for row in rows}
    by_question = {row.question: row for row in rows}
    kb_files = sorted({row.file for row in rows if row.collection == "kb"})
    users = {f"case{seed}-u{i}": random_grants(rng, kb_files) for i in range(size.users)}
    for user, grants in users.items():
        stack.user(user)
        apply(stack, user, grants, ids)
    questions = [question(rng, rows) for _ in range(size.questions)]

    def visible(user: str) -> list[Row]:
        grants = users[user]
        return [r for r in rows if r.collection in grants and grants[r.collection].sees(r)]

    def cited_rows(citations: list[dict[str, Any]]) -> list[Row]:
        return [by_url[c["source_url"]] for c in citations]

    def post(user: str, route: str, body: dict[str, Any], refusals: tuple[int, ...] = ()) -> Any:
        response = client.post(route, json=body, headers=stack.headers(user))
        assert response.status_code in (200, *refusals), (route, response.text)
        return response

    asked: dict[str, list[dict[str, Any]]] = {user: [] for user in users}
    for user, grants in users.items():
        scope = {"collections": sorted(grants)}
        seen = visible(user)
        for text in questions:
            quality = rng.choice(["fast", "precise"])
            # Search: only visible cards, and all the k best of them.
            found = post(user, "/v1/search", {"query": text, "scope": scope, "k": 5,
                                               "quality": quality}).json()["results"]  # fmt: skip
            assert set(cited_rows(found)) <= set(seen)
            allowed = SearchFilter(
                collections=sorted(grants),
                card_ids=[f"{ids[r.file]}-{rows_of(rows, r.file).index(r):05d}" for r in seen],
            )
            expected = stack.retriever.search(text, allowed, 5, quality=quality) if seen else []
            assert [round(h["score"], 4) for h in found] == [round(h.score, 4) for h in expected]
            # Native chat (the cache is shared by users who see the same) and completions.
            body = {"messages": [{"role": "user", "content": text}], "scope": scope,
                    "quality": quality, "request_id": f"{user}-{len(asked[user])}"}  # fmt: skip
            done = post(user, "/v1/chat", body).json()
            assert set(cited_rows(done["citations"])) <= set(seen), (user, text, done["cached"])
            asked[user].append(body | {"conversation_id": done["conversation_id"]})
            completion = post(user, "/v1/chat/completions", {
                "model": "m", "messages": body["messages"], "scope": scope, "quality": quality,
            }).json()  # fmt: skip
            assert set(cited_rows(completion["citations"])) <= set(seen)
        # Starters: each drawn from a visible card.
        listed = client.get("/v1/starters", params={"limit": 100}, headers=stack.headers(user))
        assert {by_question[s["text"]] for s in listed.json()["data"]} <= set(seen)
        # The listing: visible sources only, each with its visible cards counted.
        collections = client.get("/v1/collections", headers=stack.headers(user)).json()["data"]
        counts = {s["location"]: s["cards"] for c in collections for s in c["sources"]}
        assert counts == {f: sum(1 for r in seen if r.file == f) for f in {r.file for r in seen}}
        # A source the user sees nothing of does not exist for them.
        file = rng.choice(kb_files)
        resolved = client.post("/v1/scope/resolve", json={"scope": {"source_id": ids[file]}},
                               headers=stack.headers(user))  # fmt: skip
        if any(r.file == file for r in seen):
            assert resolved.status_code == 200, resolved.text
        else:
            assert resolved.json()["error"]["code"] == "sources.not_found"

    # Grants change: no replay, feed or fresh answer may carry what they no longer show.
    for user in users:
        users[user] = random_grants(rng, kb_files)
        apply(stack, user, users[user], ids)
    for user, bodies in asked.items():
        seen = visible(user)
        for body in bodies:
            # The same request: refused (409: another grant; 403: the collection went), or
            # an answer of what the user sees now.
            retry = post(
                user,
                "/v1/chat",
                {k: v for k, v in body.items() if k != "conversation_id"},
                refusals=(403, 409),
            )
            if retry.status_code == 200:
                assert set(cited_rows(retry.json()["citations"])) <= set(seen)
            feed = client.get(f"/v1/conversations/{body['conversation_id']}/feed",
                              headers=stack.headers(user)).json()["items"]  # fmt: skip
            for item in feed:
                assert set(cited_rows(item["citations"])) <= set(seen)
            again = {**body, "request_id": None, "scope": {"collections": sorted(users[user])}}
            answer = post(user, "/v1/chat", again).json()
            assert set(cited_rows(answer["citations"])) <= set(seen)


def rows_of(rows: list[Row], file: str) -> list[Row]:
    return [r for r in rows if r.file == file]
