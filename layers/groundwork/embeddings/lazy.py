"""An embedder that loads its model on the first text it embeds, not when it is built.

The OpenSearch index needs an embedder to search and to index, but the scope function only
lists and counts: with this, it never loads the engine or the model, and runs on the slim
dependency layer that has none of them (docs/deploy.md).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from groundwork.embeddings.base import Embedder

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    import numpy as np
    import numpy.typing as npt

    from groundwork.embeddings.base import EmbeddingModel, Role, Terms


class LazyEmbedder(Embedder):
    def __init__(self, load: Callable[[], Embedder], model: EmbeddingModel) -> None:
        self._load = load
        self._loaded: Embedder | None = None
        self.model = model

    def embed(self, texts: Sequence[str], *, role: Role) -> npt.NDArray[np.float32]:
        return self._engine().embed(texts, role=role)

    def latent_terms(self, texts: Sequence[str]) -> list[Terms] | None:
        return self._engine().latent_terms(texts)

    def _engine(self) -> Embedder:
        if self._loaded is None:
            self._loaded = self._load()
        return self._loaded
