"""The response cache key: a digest of everything that determines an answer.

That is the normalised question, the resolved scope (collections, source, cards, tags,
period), the answer's language, the quality, the history it follows, and the contents of
every collection searched. A collection's contents are fingerprinted by its card count and
the ids and content hashes of its sources: ingesting, changing or deleting a document changes
the fingerprint, so older entries are simply never asked for again (and expire by TTL).
"""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence

    from groundwork.retrieval.base import Retriever, SearchFilter
    from groundwork.storage.base import Storage


def normalize_question(question: str) -> str:
    """Case, spacing and trailing punctuation do not change what is asked."""
    return " ".join(question.casefold().split()).rstrip(" ?!.。？！")


def collection_fingerprint(storage: Storage, retriever: Retriever, collection: str) -> str:
    sources = sorted((s.id, s.content_hash) for s in storage.list_sources(collection))
    return _digest([retriever.count(collection), sources])


def cache_key(
    *,
    question: str,
    where: SearchFilter,
    language: str | None,
    quality: str,
    history: Sequence[tuple[str, str]],
    fingerprints: dict[str, str],
) -> str:
    return _digest(
        {
            "question": normalize_question(question),
            "scope": where.model_dump(mode="json"),
            "language": language,
            "quality": quality,
            "history": [list(pair) for pair in history],
            "collections": fingerprints,
        }
    )


def _digest(value: object) -> str:
    encoded = json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(encoded.encode()).hexdigest()
