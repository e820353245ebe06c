"""Groundwork: answers from your documents with verifiable citations, and grounding checks."""

__version__ = "0.1.0"
