"""The embedding models Groundwork runs, each with its vector size, known without loading it.

An index compares the model that built its vectors with the configured one before anything
is embedded (``GROUNDWORK_EMBEDDINGS`` names the kind; with ``bedrock``,
``GROUNDWORK_BEDROCK_EMBEDDING_MODEL`` the model).
"""

from __future__ import annotations

from groundwork.embeddings.base import EmbeddingModel

E5_SMALL = EmbeddingModel("multilingual-e5-small", 384)
MINILM = EmbeddingModel("all-MiniLM-L6-v2", 384)

MODELS = {"e5": E5_SMALL, "minilm": MINILM}

#: Bedrock's models by their model id. Titan's size is ours to choose (256, 512 or 1024): 512
#: keeps about 99% of 1024's retrieval accuracy by Amazon's measure for half the memory, disk
#: and OpenSearch capacity per card; it is part of the record, so another size is another
#: model to the index. Cohere's is fixed.
TITAN_V2 = EmbeddingModel("amazon.titan-embed-text-v2:0", 512)
COHERE_V3 = EmbeddingModel("cohere.embed-multilingual-v3", 1024)

BEDROCK_MODELS = {model.name: model for model in (TITAN_V2, COHERE_V3)}
