"""Starters: suggested questions per collection (docs/starters.md)."""
