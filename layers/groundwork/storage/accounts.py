"""Users, their API keys (hashed at rest), collections, and which user sees which collection."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING

from groundwork.storage.records import (
    ApiKeyRecord,
    CollectionRecord,
    GrantRecord,
    UserRecord,
    hash_api_key,
    new_api_key,
)

if TYPE_CHECKING:
    from collections.abc import Sequence


class AccountStore(ABC):
    @abstractmethod
    def create_user(self, user_id: str, name: str) -> UserRecord:
        """Raises ``AlreadyExists``."""

    @abstractmethod
    def get_user(self, user_id: str) -> UserRecord | None: ...

    def issue_api_key(self, user_id: str, label: str | None = None) -> str:
        """A new key for the user; it is returned once and only its hash is stored.

        Raises ``NotFound`` when the user does not exist.
        """
        key = new_api_key()
        self._put_api_key(
            ApiKeyRecord(
                key_hash=hash_api_key(key), user_id=user_id, label=label, created=self._now()
            )
        )
        return key

    def authenticate(self, key: str) -> UserRecord | None:
        """The user the key belongs to; None for an unknown or revoked key."""
        record = self._get_api_key(hash_api_key(key))
        return self.get_user(record.user_id) if record else None

    @abstractmethod
    def revoke_api_key(self, key_hash: str) -> bool:
        """False when there was no such key."""

    @abstractmethod
    def create_collection(self, name: str, title: str | None = None) -> CollectionRecord:
        """Raises ``AlreadyExists``."""

    @abstractmethod
    def get_collection(self, name: str) -> CollectionRecord | None: ...

    @abstractmethod
    def list_collections(self) -> list[CollectionRecord]:
        """Every collection, by name."""

    def grant(
        self,
        user_id: str,
        collection: str,
        *,
        tags: Sequence[str] = (),
        source_ids: Sequence[str] = (),
    ) -> GrantRecord:
        """Let the user see the collection: all of it, or with ``tags`` or ``source_ids``, the
        cards that have one of the tags or come from one of the sources. A grant replaces the
        user's earlier grant of the collection. ``NotFound`` if the user or collection is
        missing."""
        record = GrantRecord(
            user_id=user_id,
            collection=collection,
            created=self._now(),
            tags=sorted(set(tags)),
            source_ids=sorted(set(source_ids)),
        )
        self._put_grant(record)
        return record

    @abstractmethod
    def revoke(self, user_id: str, collection: str) -> bool:
        """False when the user had no grant."""

    @abstractmethod
    def grants(self, user_id: str) -> list[GrantRecord]:
        """The user's grants, by collection."""

    def visible_collections(self, user_id: str) -> list[str]:
        """The names of the collections the user may see (wholly or in part), sorted."""
        return [grant.collection for grant in self.grants(user_id)]

    def can_see(self, user_id: str, collection: str) -> bool:
        return collection in self.visible_collections(user_id)

    @abstractmethod
    def _put_grant(self, record: GrantRecord) -> None:
        """Create or replace the grant; ``NotFound`` when the user or collection is missing."""

    @abstractmethod
    def _put_api_key(self, record: ApiKeyRecord) -> None:
        """Store the hash; ``NotFound`` when the user does not exist."""

    @abstractmethod
    def _get_api_key(self, key_hash: str) -> ApiKeyRecord | None: ...

    @abstractmethod
    def _now(self) -> int: ...
