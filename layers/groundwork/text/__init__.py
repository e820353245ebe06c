"""Text utilities shared by ingestion, retrieval, generation and grounding."""
