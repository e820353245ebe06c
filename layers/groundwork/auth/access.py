"""What a user may see: their grants, turned into the part of a search filter that hides the
rest of each collection.

A grant is a whole collection, or, with a filter, the cards of it that have one of the
grant's tags or come from one of its sources (docs/access.md). Hidden cards are kept out of
the query itself (``SearchFilter.restricted``), and everything an answer can carry outside a
search (a turn of the feed, a starter, a source) is checked against the same rule.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import TYPE_CHECKING

from groundwork.retrieval.base import Restriction, SearchFilter

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from pydantic import JsonValue

    from groundwork.retrieval.base import Retriever
    from groundwork.storage.accounts import AccountStore
    from groundwork.storage.base import SourceRecord
    from groundwork.storage.records import GrantRecord


def restriction_of(grant: GrantRecord) -> Restriction | None:
    """None for a whole collection."""
    if grant.whole:
        return None
    return Restriction(tags=grant.tags, source_ids=grant.source_ids)


@dataclass(frozen=True)
class Access:
    """The collections a user may see, each mapped to None (all of it) or to the restriction
    of its grant."""

    grants: Mapping[str, Restriction | None]

    @classmethod
    def of(cls, accounts: AccountStore, user_id: str) -> Access:
        return cls({grant.collection: restriction_of(grant) for grant in accounts.grants(user_id)})

    def __contains__(self, collection: object) -> bool:
        return collection in self.grants

    @property
    def collections(self) -> list[str]:
        return sorted(self.grants)

    def restriction(self, collection: str) -> Restriction | None:
        return self.grants.get(collection)

    def narrow(self, where: SearchFilter) -> SearchFilter:
        """``where`` limited to the cards this user sees of each collection it searches."""
        restricted = {
            name: restriction
            for name in where.collections
            if (restriction := self.grants.get(name)) is not None
        }
        return SearchFilter.model_validate(where.model_dump() | {"restricted": restricted})

    def sees(self, collection: str, source_id: str | None, tags: Sequence[str]) -> bool:
        """A card (or anything drawn from cards with these tags, of that source)."""
        if collection not in self.grants:
            return False
        restriction = self.grants[collection]
        if restriction is None:
            return True
        return restriction.allows(source_id, tags)

    def sees_source(self, source: SourceRecord, retriever: Retriever) -> bool:
        """The source has a card this user sees."""
        if source.collection not in self.grants:
            return False
        restriction = self.grants[source.collection]
        if restriction is None or source.id in restriction.source_ids:
            return True
        where = SearchFilter(
            collections=[source.collection],
            source_ids=[source.id],
            restricted={source.collection: restriction},
        )
        return bool(retriever.source_counts(where))

    def covers(self, scope: JsonValue) -> bool:
        """Every card a search of ``scope`` (a ``SearchFilter`` as stored with a question) could
        find is visible now: what was answered from it may be shown again.

        A sufficient check, so it errs on the side of hiding: for each collection, a whole
        grant, or a grant whose tags or sources include all those the scope was limited to.
        """
        try:
            where = SearchFilter.model_validate(scope)
        except ValueError:
            return False
        if not where.collections:
            return False
        return all(self._covers(name, where) for name in where.collections)

    def _covers(self, name: str, where: SearchFilter) -> bool:
        if name not in self.grants:
            return False
        now = self.grants[name]
        if now is None:
            return True
        then = where.restricted.get(name)
        return bool(
            (where.source_ids and set(where.source_ids) <= set(now.source_ids))
            or (where.tags and set(where.tags) <= set(now.tags))
            or (
                then is not None
                and set(then.tags) <= set(now.tags)
                and set(then.source_ids) <= set(now.source_ids)
            )
        )


def restriction_fingerprint(where: SearchFilter) -> str | None:
    """A digest of the parts of the searched collections ``where`` hides; None when it hides
    nothing. Two users with the same fingerprint (and the same scope) see the same cards."""
    if not where.restricted:
        return None
    restricted = {name: r.model_dump() for name, r in where.restricted.items()}
    encoded = json.dumps(restricted, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(encoded.encode()).hexdigest()
