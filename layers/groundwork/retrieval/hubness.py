"""Cards near any question in another language, and their discount in the search by meaning.

In a space shared by many languages some passages are hubs: near the middle of the space, they
are among the nearest cards of a question asked across languages whatever it asks. On the Open
Source Guides a section listing contributors' GitHub handles, few words of any language, was
among the first five of 47 of 51 Chinese questions over the English articles. Such a card is
near everyday sentences too, where a passage about one subject is not. Cross-domain similarity
local scaling (CSLS; Conneau et al., "Word translation without parallel data", ICLR 2018) ranks
a candidate by its cosine less its mean cosine with its nearest queries; here the queries are a
fixed background of 200 short everyday English sentences from Tatoeba (``background/``, with
their source), embedded by the model once and shipped as its vectors, so nothing is embedded
at query time. A card's hubness is its mean cosine with its :data:`NEIGHBOURS` nearest
background sentences; the search by meaning takes :data:`WEIGHT` of it from the card's cosine
mix (``retrieval.meaning``). A model without shipped background vectors (MiniLM, Bedrock's)
is not discounted. docs/retrieval.md, "Hubs across languages", has the figures.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import numpy.typing as npt

    from groundwork.embeddings.base import EmbeddingModel

#: The hubness's weight against the cosine mix. Chosen on the Open Source Guides' questions in
#: de, es, ja, ru and ar over the English articles (``bench.multilingual --parts hubs``), by R@5
#: summed over them; the number of neighbours (5 to 20) and of background sentences (100 to
#: 1,000) moved that sum by less than one question in a hundred.
WEIGHT = 0.5
#: Background sentences whose cosines with a card are averaged.
NEIGHBOURS = 10

BACKGROUND = Path(__file__).resolve().parent / "background"


def sentences() -> list[str]:
    """The background sentences, in the order of their shipped vectors."""
    lines = (BACKGROUND / "sentences.tsv").read_text(encoding="utf-8").splitlines()
    return [line.split("\t", 1)[1] for line in lines if line]


def vectors_file(model: EmbeddingModel) -> Path:
    return BACKGROUND / f"{model.name}.npy"


@cache
def background(model: EmbeddingModel) -> npt.NDArray[np.float32] | None:
    """The background sentences as ``model`` embeds them (as questions); None when none are
    shipped for it."""
    file = vectors_file(model)
    if not file.exists():
        return None
    vectors = np.load(file).astype(np.float32)
    return vectors if vectors.shape[1] == model.dimension else None


def hubness(
    vectors: npt.NDArray[np.float32], background: npt.NDArray[np.float32]
) -> npt.NDArray[np.float32]:
    """Each card's (a row of ``vectors``) mean cosine with its nearest background sentences."""
    cosines = vectors @ background.T
    nearest = min(NEIGHBOURS, background.shape[0])
    hubs: npt.NDArray[np.float32] = np.sort(cosines, axis=1)[:, -nearest:].mean(axis=1)
    return hubs
