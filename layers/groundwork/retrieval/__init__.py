"""Passage retrieval behind one interface."""
