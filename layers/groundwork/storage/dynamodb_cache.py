"""The response cache in the DynamoDB table; TTL deletes late (or never, on moto), so reads
check the expiration themselves."""

from __future__ import annotations

from typing import TYPE_CHECKING

from groundwork.storage.cache import ResponseCache
from groundwork.storage.dynamodb_table import TTL_ATTRIBUTE, n, s, text
from groundwork.storage.dynamodb_table import key as item_key
from groundwork.storage.records import CacheEntry

if TYPE_CHECKING:
    from pydantic import JsonValue

    from groundwork.storage.dynamodb_table import DynamoTable


class DynamoDBResponseCache(ResponseCache):
    def __init__(self, table: DynamoTable) -> None:
        self._table = table

    def get(self, key: str) -> CacheEntry | None:
        item = self._table.get(f"CACHE#{key}", "CACHE")
        if item is None:
            return None
        entry = CacheEntry.model_validate_json(text(item, "body"))
        return entry if entry.expiration > self._table.now() else None

    def put(self, key: str, response: dict[str, JsonValue], ttl_seconds: int) -> CacheEntry:
        now = self._table.now()
        entry = CacheEntry(key=key, response=response, created=now, expiration=now + ttl_seconds)
        self._table.call(
            "put_item",
            TableName=self._table.name,
            Item={
                **item_key(f"CACHE#{key}", "CACHE"),
                TTL_ATTRIBUTE: n(entry.expiration),
                "body": s(entry.model_dump_json()),
            },
        )
        return entry

    def delete(self, key: str) -> bool:
        return self._table.delete(f"CACHE#{key}", "CACHE")
