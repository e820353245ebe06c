"""Which units of long passages are embedded: whole passages, the likeliest first, within a
budget."""

from __future__ import annotations

from typing import TYPE_CHECKING

from groundwork.answer.relevance import MAX_EMBEDDED, gather
from groundwork.domain.cards import Card
from groundwork.embeddings.base import Embedder
from groundwork.embeddings.factory import get_embedder

if TYPE_CHECKING:
    from collections.abc import Sequence

    import numpy as np
    import numpy.typing as npt

    from groundwork.embeddings.base import Role


class Recording(Embedder):
    """The configured embedder, keeping the texts of each call."""

    def __init__(self) -> None:
        self.inner = get_embedder()
        self.model = self.inner.model
        self.calls: list[tuple[Role, list[str]]] = []

    def embed(self, texts: Sequence[str], *, role: Role) -> npt.NDArray[np.float32]:
        self.calls.append((role, list(texts)))
        return self.inner.embed(texts, role=role)


def test_given_five_long_passages_when_gathered_then_whole_ones_within_budget_are_embedded() -> (
    None
):
    question = "When was the harbour lighthouse of Aldwick rebuilt?"
    passages = [
        Card(
            id=f"p{p}",
            collection="c",
            source_id="s",
            url="u",
            text=" ".join(
                f"The harbour of Aldwick saw ship number {p * 10 + s} arrive that week."
                for s in range(8)
            )
            + (" The lighthouse of Aldwick was rebuilt in 1862 after a storm." if p == 0 else ""),
        )
        for p in range(5)
    ]
    embedder = Recording()

    evidence = gather(question, passages, embedder)

    # The question as a query, the units, then the question as a passage (its topic, which the
    # learned nearness reads too).
    (asked_as, [asked]), (read_as, sentences), topic = embedder.calls
    assert (asked_as, asked, read_as) == ("query", question, "passage")
    assert topic == ("passage", [question])
    assert len(sentences) <= MAX_EMBEDDED < 41
    # The passage that holds the answer (rank 1, the only one naming the lighthouse) is read
    # whole, and no passage is read in part.
    assert "The lighthouse of Aldwick was rebuilt in 1862 after a storm." in sentences
    assert len(sentences) % 8 == 1
    assert evidence.best is not None
    assert evidence.best.text == "The lighthouse of Aldwick was rebuilt in 1862 after a storm."
