"""The stores of one backend, built together so that they share a connection or a table."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from groundwork.storage.accounts import AccountStore
    from groundwork.storage.cache import ResponseCache
    from groundwork.storage.conversations import ConversationStore
    from groundwork.storage.idempotency import IdempotencyStore
    from groundwork.storage.quotas import QuotaStore
    from groundwork.storage.starters import StarterStore


@dataclass(frozen=True)
class Stores:
    accounts: AccountStore
    conversations: ConversationStore
    idempotency: IdempotencyStore
    cache: ResponseCache
    quotas: QuotaStore
    starters: StarterStore
