"""The embeddings port."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence

    import numpy as np
    import numpy.typing as npt


class Embedder(ABC):
    """Turns texts into unit-length vectors, so a dot product is the cosine similarity."""

    dimension: int

    @abstractmethod
    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """One row per text, shape ``(len(texts), dimension)``."""

    def embed_query(self, question: str) -> npt.NDArray[np.float32]:
        """The vector of a question searched for, which a model may embed otherwise than the
        passages that answer it (Cohere's ``search_query``)."""
        row: npt.NDArray[np.float32] = self.embed([question])[0]
        return row
