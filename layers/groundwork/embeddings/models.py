"""The embedding models Groundwork runs, each with its vector size, known without loading it.

An index compares the model that built its vectors with the configured one before anything
is embedded (``GROUNDWORK_EMBEDDINGS`` names the kind).
"""

from __future__ import annotations

from groundwork.embeddings.base import EmbeddingModel

E5_SMALL = EmbeddingModel("multilingual-e5-small", 384)
MINILM = EmbeddingModel("all-MiniLM-L6-v2", 384)

MODELS = {"e5": E5_SMALL, "minilm": MINILM}
