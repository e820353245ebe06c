"""An embedder that remembers the vectors of the last texts it embedded.

An answer embeds its question for the search and again beside the candidate sentences, and
the passages asked about repeat: remembered, neither runs through the model twice. A text's
vector is the same remembered or not.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import TYPE_CHECKING

import numpy as np

from groundwork.embeddings.base import Embedder

if TYPE_CHECKING:
    from collections.abc import Sequence

    import numpy.typing as npt

    from groundwork.embeddings.base import Role, Terms


class RememberingEmbedder(Embedder):
    def __init__(self, inner: Embedder, *, remember: int = 4096) -> None:
        self.inner = inner
        self.model = inner.model
        self._remember = remember
        self._seen: OrderedDict[tuple[Role, str], npt.NDArray[np.float32]] = OrderedDict()
        self._lock = threading.Lock()

    def embed(self, texts: Sequence[str], *, role: Role) -> npt.NDArray[np.float32]:
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        missing: dict[str, list[int]] = {}
        with self._lock:
            for i, text in enumerate(texts):
                vector = self._seen.get((role, text))
                if vector is None:
                    missing.setdefault(text, []).append(i)
                else:
                    self._seen.move_to_end((role, text))
                    out[i] = vector
        if not missing:
            return out
        fresh = list(missing)
        vectors = self.inner.embed(fresh, role=role)
        with self._lock:
            for text, vector in zip(fresh, vectors, strict=True):
                out[missing[text]] = vector
                if self._remember:
                    self._seen[(role, text)] = vector
                    self._seen.move_to_end((role, text))
            while len(self._seen) > self._remember:
                self._seen.popitem(last=False)
        return out

    def latent_terms(self, texts: Sequence[str]) -> list[Terms] | None:
        return self.inner.latent_terms(texts)
