"""The response cache: entries expire in code (moto never deletes by TTL) and are replaced."""

from __future__ import annotations

from groundwork.storage.stores import Stores
from tests.storage.conftest import FakeClock


def test_given_a_cached_answer_when_read_before_and_after_its_ttl_then_it_expires(
    stores: Stores, clock: FakeClock
) -> None:
    stores.cache.put("k", {"text": "old"}, ttl_seconds=60)

    clock.advance(59)
    entry = stores.cache.get("k")
    clock.advance(1)

    assert entry is not None
    assert entry.response == {"text": "old"}
    assert stores.cache.get("k") is None


def test_given_a_fresh_entry_when_bypass_cache_puts_again_then_the_new_answer_replaces_it(
    stores: Stores,
) -> None:
    stores.cache.put("k", {"text": "old"}, ttl_seconds=60)

    stores.cache.put("k", {"text": "new"}, ttl_seconds=60)

    entry = stores.cache.get("k")
    assert entry is not None
    assert entry.response == {"text": "new"}
    assert stores.cache.delete("k") is True
    assert stores.cache.get("k") is None
    assert stores.cache.delete("k") is False
