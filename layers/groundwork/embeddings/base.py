"""The embeddings port."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from collections.abc import Sequence

    import numpy as np
    import numpy.typing as npt

#: Sparse latent terms: their indexes and weights, the strongest first.
Terms = tuple["npt.NDArray[np.int32]", "npt.NDArray[np.float32]"]

#: What a text is to the model: a question asked (``query``), or text that may answer one
#: (``passage``: cards and their sentences). E5 models are trained with the two prefixed apart.
Role = Literal["query", "passage"]


@dataclass(frozen=True)
class EmbeddingModel:
    """What built a vector. An index records it, and vectors of two models are never mixed: a
    cosine between them means nothing, even at the same dimension."""

    name: str
    dimension: int


class Embedder(ABC):
    """Turns texts into unit-length vectors, so a dot product is the cosine similarity."""

    model: EmbeddingModel

    @property
    def dimension(self) -> int:
        return self.model.dimension

    @abstractmethod
    def embed(self, texts: Sequence[str], *, role: Role) -> npt.NDArray[np.float32]:
        """One row per text, shape ``(len(texts), dimension)``."""

    def latent_terms(self, texts: Sequence[str]) -> list[Terms] | None:
        """Each text's sparse latent terms (``retrieval.latent_terms``); None: the model has
        none. Questions and passages are read alike."""
        return None
