"""What the service does once when it starts, before it answers anything."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from groundwork.settings import Settings

logger = logging.getLogger(__name__)


def start(settings: Settings) -> None:
    """Seed the default collection with the docs (when asked) and set up the local user (when
    on). Neither runs in a deployment, whose start must not wait on the index."""
    from groundwork.retrieval.factory import get_retriever

    if settings.bootstrap_docs and settings.docs_dir is not None:
        from groundwork.ingest.bootstrap import ingest_docs
        from groundwork.starters.factory import starter_proposer
        from groundwork.storage.factory import get_storage

        ingest_docs(
            get_retriever(settings),
            get_storage(settings),
            settings.docs_dir,
            settings.default_collection,
            starter_proposer(settings),
        )
    if settings.local_user:
        from groundwork.auth.local import prepare_local_user
        from groundwork.storage.factory import get_stores

        prepare_local_user(
            get_stores(settings).accounts, get_retriever(settings), settings.default_collection
        )


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
