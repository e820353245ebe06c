"""What the service does once when it starts: before it answers anything, or beside it (the
docs that ``groundwork serve`` seeds)."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable
    from multiprocessing.process import BaseProcess
    from multiprocessing.sharedctypes import Synchronized
    from pathlib import Path

    from groundwork.settings import Settings

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Seeding:
    """The docs being indexed beside the service, which ``/health`` reports while it runs."""

    collection: str
    documents: int
    process: BaseProcess
    done: Synchronized[int]

    def running(self) -> tuple[int, int] | None:
        """How many of the documents are done, or None once the process has ended."""
        return (self.done.value, self.documents) if self.process.is_alive() else None


def start(settings: Settings, *, docs_aside: bool = False) -> Seeding | None:
    """Seed the default collection with the docs (when asked) and set up the local user (when
    on). Neither runs in a deployment, whose start must not wait on the index.

    ``docs_aside`` (``groundwork serve``) seeds them in a process of its own, so that the
    service answers at once, from what is indexed so far (the README first), where a first
    start that waited for every doc would take minutes before the page opened. That process is
    returned while it runs.
    """
    from groundwork.retrieval.factory import get_retriever

    aside = None
    if settings.bootstrap_docs and settings.docs_dir is not None:
        if not docs_aside:
            seed_docs(settings, settings.docs_dir)
        elif _pending(settings, settings.docs_dir):
            aside = _seed_aside(settings, settings.docs_dir)
    if aside:
        # Registered while still empty, so that it can be granted (`groundwork admin grant`)
        # and the page lists it before its first document is in.
        from groundwork.auth.local import grant_local
        from groundwork.storage.factory import get_stores

        grant_local(get_stores(settings).accounts, settings.default_collection)
    if settings.local_user:
        from groundwork.auth.local import prepare_local_user
        from groundwork.storage.factory import get_stores

        prepare_local_user(
            get_stores(settings).accounts, get_retriever(settings), settings.default_collection
        )
    return aside


def seed_docs(
    settings: Settings, docs: Path, progress: Callable[[int, int], object] | None = None
) -> None:
    """Index ``docs`` into the default collection when it does not hold them all yet;
    ``progress`` hears how many of how many files are done."""
    from groundwork.ingest.bootstrap import ingest_docs
    from groundwork.retrieval.factory import get_retriever
    from groundwork.starters.factory import starter_proposer
    from groundwork.storage.factory import get_storage

    ingest_docs(
        get_retriever(settings),
        get_storage(settings),
        docs,
        settings.default_collection,
        starter_proposer(settings),
        progress=progress,
    )


def _pending(settings: Settings, docs: Path) -> bool:
    from groundwork.ingest.bootstrap import pending
    from groundwork.retrieval.factory import get_retriever
    from groundwork.storage.factory import get_storage

    collection = settings.default_collection
    return pending(get_retriever(settings), get_storage(settings), docs, collection) is not None


def _seed_aside(settings: Settings, docs: Path) -> Seeding:
    import multiprocessing

    from groundwork.ingest.bootstrap import doc_files

    # Spawned, not forked: a fork of a process whose OpenMP threads have run can hang. Daemonic,
    # so it ends with the service; a source it was writing is finished by the next start.
    context = multiprocessing.get_context("spawn")
    done = context.Value("i", 0)
    process = context.Process(
        target=_seed_in_child, args=(settings, docs, done), name="groundwork-docs", daemon=True
    )
    process.start()
    return Seeding(settings.default_collection, len(doc_files(docs)), process, done)


def _seed_in_child(settings: Settings, docs: Path, done: Synchronized[int]) -> None:
    import sys

    def count(files: int, _total: int) -> None:
        done.value = files

    try:
        seed_docs(settings, docs, count)
    except KeyboardInterrupt:  # Ctrl-C reaches the whole process group
        print("groundwork: indexing stopped; the next start goes on", file=sys.stderr)
    except Exception as error:  # the service runs on: its requests say what is wrong
        print(f"groundwork: indexing the docs failed: {error}", file=sys.stderr)


def warn_unlocated(settings: Settings) -> None:
    """Say which collections still hold cards without source locations, and how to add them
    (``groundwork serve``, once, before it serves; an index it cannot read is left for the
    requests to report)."""
    from groundwork.retrieval.factory import get_retriever

    try:
        unlocated = get_retriever(settings).unlocated()
    except Exception:
        logger.debug("could not count the cards without locations", exc_info=True)
        return
    for collection, cards in sorted(unlocated.items()):
        logger.warning(
            "collection %s: %d passages were indexed by an older version and are cited "
            "without a source_location (page, characters); ingest their files again "
            "(groundwork ingest PATH --collection %s) to add it",
            collection,
            cards,
            collection,
        )
