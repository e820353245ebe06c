"""Native chat: conversations with versions, idempotent streams, a response cache, scopes."""
