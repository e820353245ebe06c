"""Builds the configured storage once per settings object."""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

from groundwork.settings import Settings, get_settings
from groundwork.storage.stores import Stores

if TYPE_CHECKING:
    from groundwork.storage.base import Storage
    from groundwork.storage.dynamodb_table import DynamoTable
    from groundwork.storage.sqlite_db import SQLiteDatabase


@lru_cache(maxsize=4)
def get_storage(settings: Settings | None = None) -> Storage:
    """Sources and answers."""
    settings = settings or get_settings()
    match settings.storage:
        case "sqlite":
            from groundwork.storage.sqlite import SQLiteStorage

            return SQLiteStorage(_sqlite_database(settings))
        case "dynamodb":
            from groundwork.storage.dynamodb import DynamoDBStorage

            return DynamoDBStorage(_dynamodb_table(settings))


@lru_cache(maxsize=4)
def get_stores(settings: Settings | None = None) -> Stores:
    """Accounts, conversations, idempotency records, the response cache, quotas, starters."""
    settings = settings or get_settings()
    match settings.storage:
        case "sqlite":
            return sqlite_stores(_sqlite_database(settings))
        case "dynamodb":
            return dynamodb_stores(_dynamodb_table(settings))


def sqlite_stores(database: SQLiteDatabase) -> Stores:
    from groundwork.storage.sqlite_accounts import SQLiteAccountStore
    from groundwork.storage.sqlite_cache import SQLiteResponseCache
    from groundwork.storage.sqlite_conversations import SQLiteConversationStore
    from groundwork.storage.sqlite_idempotency import SQLiteIdempotencyStore
    from groundwork.storage.sqlite_quotas import SQLiteQuotaStore
    from groundwork.storage.sqlite_starters import SQLiteStarterStore

    return Stores(
        accounts=SQLiteAccountStore(database),
        conversations=SQLiteConversationStore(database),
        idempotency=SQLiteIdempotencyStore(database),
        cache=SQLiteResponseCache(database),
        quotas=SQLiteQuotaStore(database),
        starters=SQLiteStarterStore(database),
    )


def dynamodb_stores(table: DynamoTable) -> Stores:
    from groundwork.storage.dynamodb_accounts import DynamoDBAccountStore
    from groundwork.storage.dynamodb_cache import DynamoDBResponseCache
    from groundwork.storage.dynamodb_conversations import DynamoDBConversationStore
    from groundwork.storage.dynamodb_idempotency import DynamoDBIdempotencyStore
    from groundwork.storage.dynamodb_quotas import DynamoDBQuotaStore
    from groundwork.storage.dynamodb_starters import DynamoDBStarterStore

    return Stores(
        accounts=DynamoDBAccountStore(table),
        conversations=DynamoDBConversationStore(table),
        idempotency=DynamoDBIdempotencyStore(table),
        cache=DynamoDBResponseCache(table),
        quotas=DynamoDBQuotaStore(table),
        starters=DynamoDBStarterStore(table),
    )


@lru_cache(maxsize=4)
def _sqlite_database(settings: Settings) -> SQLiteDatabase:
    """One connection per settings object, shared by every SQLite store."""
    from groundwork.storage.sqlite_db import SQLiteDatabase

    return SQLiteDatabase(settings.state_path)


@lru_cache(maxsize=4)
def _dynamodb_table(settings: Settings) -> DynamoTable:
    from groundwork.storage.dynamodb_table import DynamoTable, RetryPolicy

    table = DynamoTable(
        settings.dynamodb_table,
        endpoint_url=settings.dynamodb_endpoint_url,
        region=settings.dynamodb_region,
        retry=RetryPolicy.with_timeout(settings.dynamodb_timeout_s),
    )
    if settings.dynamodb_create_table:
        table.create()
    return table
