"""Service state (sources, accounts, conversations, idempotency, cache, quotas) on SQLite or
DynamoDB; see docs/storage.md."""
