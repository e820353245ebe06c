"""A tiny world for chat tests: two users, three collections, a few cards, a slow generator.

Kept importable without pytest so that the uvicorn subprocess of the reliability tests
(``tests.chat.server``) builds exactly the same app.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from fastapi import FastAPI

from groundwork.api.routes.chat import chat_service
from groundwork.chat.answering import Answerer
from groundwork.chat.service import ChatConfig, ChatService
from groundwork.domain.cards import Card
from groundwork.generation.base import GenerationRequest, Generator
from groundwork.generation.extractive import ExtractiveComposer
from groundwork.retrieval.factory import get_retriever
from groundwork.settings import Settings
from groundwork.storage.base import SourceRecord
from groundwork.storage.factory import get_storage, get_stores

CATECHISM = [
    ("Who made us?", "God made us."),
    ("What is prayer?", "Prayer is the lifting up of our minds and hearts to God."),
    (
        "How many sacraments are there?",
        "There are seven sacraments: Baptism, Confirmation, Holy Eucharist, Penance, "
        "Anointing of the Sick, Holy Orders, and Matrimony.",
    ),
    (
        "What is Baptism?",
        "Baptism is the sacrament that gives our souls the new life of sanctifying grace.",
    ),
]
REPORTS = [
    ("2022", "In 2022 the revenue of the cooperative was 4 million euros."),
    ("2023", "In 2023 the revenue of the cooperative was 5 million euros."),
    ("2024", "In 2024 the revenue of the cooperative was 7 million euros."),
]
SECRET = [("Vault", "The vault code is kept by the treasurer.")]


def cards() -> list[Card]:
    made = [
        Card(
            id=f"catechism-{n}",
            collection="catechism",
            source_id="baltimore",
            text=answer,
            heading=question,
            heading_path=[question],  # as ingest writes it: the path ends in the heading
            title="Baltimore Catechism",
            url=f"https://example.org/catechism#{n}",
            tags=["sacraments"] if "sacrament" in answer else [],
            position=n,
        )
        for n, (question, answer) in enumerate(CATECHISM, start=1)
    ]
    made += [
        Card(
            id=f"report-{year}",
            collection="reports",
            source_id=f"report-{year}",
            text=text,
            title=f"Annual report {year}",
            url=f"https://example.org/reports/{year}",
            tags=["finance"],
            period_start=year,
            period_end=year,
        )
        for year, text in REPORTS
    ]
    made += [
        Card(id="secret-1", collection="secret", source_id="vault", text=text, url="x:vault")
        for _, text in SECRET
    ]
    return made


@dataclass
class World:
    settings: Settings
    keys: dict[str, str] = field(default_factory=dict)


def seed(settings: Settings) -> World:
    """Cards, their sources, users ``alice`` (catechism, reports) and ``bob`` (catechism)."""
    get_retriever(settings).upsert(cards())
    storage = get_storage(settings)
    by_source: dict[str, list[Card]] = {}
    for card in cards():
        by_source.setdefault(card.source_id, []).append(card)
    for source_id, items in by_source.items():
        storage.put_source(
            SourceRecord(
                id=source_id,
                collection=items[0].collection,
                title=items[0].title,
                location=items[0].url,
                content_hash=source_id,
                cards=len(items),
            )
        )
    accounts = get_stores(settings).accounts
    world = World(settings)
    for user, collections in (("alice", ["catechism", "reports"]), ("bob", ["catechism"])):
        accounts.create_user(user, user.title())
        world.keys[user] = accounts.issue_api_key(user)
        for name in collections:
            if accounts.get_collection(name) is None:
                accounts.create_collection(name)
            accounts.grant(user, name)
    accounts.create_collection("secret")
    accounts.create_collection("empty")
    return world


class SlowGenerator(Generator):
    """The extractive composer, word by word, ``delay`` seconds apart; counts its answers."""

    def __init__(self, delay: float = 0.0) -> None:
        self.delay = delay
        self.started = 0
        self.finished = 0
        #: Written before the answer, to tell one generation from another.
        self.prefix = ""
        #: Raised after this many words, to fail mid-stream.
        self.fail_after: int | None = None
        self.failure: Exception = RuntimeError("the model went away")
        self.requests: list[GenerationRequest] = []
        self._inner = ExtractiveComposer()
        self._lock = threading.Lock()

    def stream(self, request: GenerationRequest) -> Iterator[str]:
        with self._lock:
            self.started += 1
            self.requests.append(request)
        if self.prefix:
            yield self.prefix
        words = 0
        for delta in self._inner.stream(request):
            for word in re.split(r"(?<= )", delta):
                if self.delay:
                    time.sleep(self.delay)
                if self.fail_after is not None and words >= self.fail_after:
                    raise self.failure
                words += 1
                yield word
        with self._lock:
            self.finished += 1


def answer_with(app: FastAPI, settings: Settings, generator: Generator) -> None:
    """Make the app's chat answer with ``generator``."""
    config = ChatConfig(
        lease_seconds=settings.chat_lease_seconds,
        wait_seconds=settings.chat_wait_seconds,
        cache_ttl_seconds=settings.chat_cache_ttl_seconds,
    )
    service = ChatService(
        get_stores(settings),
        get_storage(settings),
        Answerer(get_retriever(settings), generator, settings.retrieval_k),
        config,
    )
    app.dependency_overrides[chat_service] = lambda: service


def sse_events(body: str) -> list[dict[str, Any]]:
    """The events of a stream as ``{"id", "event", "data"}``, data JSON-decoded."""
    events = []
    for block in body.strip().split("\n\n"):
        if not block.strip():
            continue
        fields = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line)
        events.append(
            {
                "id": fields.get("id"),
                "event": fields.get("event"),
                "data": json.loads(fields["data"]),
            }
        )
    return events


def ask(question: str, **extra: Any) -> dict[str, Any]:
    return {"messages": [{"role": "user", "content": question}], "collection": "catechism"} | extra


def bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}
