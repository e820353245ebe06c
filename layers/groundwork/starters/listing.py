"""The starters a listing returns: every admin's first, then the proposals, best of each
source (and collection) before any second, in one language when asked."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from groundwork.auth.access import Access
    from groundwork.storage.starters import StarterRecord, StarterStore


def list_starters(
    store: StarterStore,
    collections: list[str],
    access: Access,
    *,
    language: str | None,
    limit: int,
) -> list[StarterRecord]:
    """Of a collection the user sees in part, only the starters drawn from cards they see."""
    admin: list[StarterRecord] = []
    proposed: list[tuple[int, int, StarterRecord]] = []
    for place, collection in enumerate(collections):
        for starter in store.list_starters(collection):
            if language is not None and starter.language != language:
                continue
            if not access.sees(collection, starter.source_id, starter.tags):
                continue
            if starter.origin == "admin":
                admin.append(starter)
            else:
                proposed.append((starter.rank, place, starter))
    # Stable: within one rank and collection, the store's order (by source) is kept.
    proposed.sort(key=lambda entry: entry[:2])
    return [*admin, *(starter for *_, starter in proposed)][:limit]
