"""Sentence embeddings behind one interface."""
