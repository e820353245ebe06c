"""The answer pipeline's contract with retrieval and generation, with a spy index."""

from collections.abc import Callable, Sequence

from groundwork.answer.passages import POOL_FACTOR
from groundwork.answer.service import AnswerOptions, AnswerService, Delta, Finish
from groundwork.domain.cards import Card, Hit
from groundwork.generation.base import Turn
from groundwork.retrieval.base import Quality, Retriever, SearchFilter
from tests.completions.conftest import ScriptedGenerator, catechism_cards


class SpyIndex(Retriever):
    """Answers every search with the catechism cards and remembers how it was asked."""

    def __init__(self) -> None:
        self.searches: list[tuple[str, SearchFilter, int, Quality]] = []

    def upsert(self, cards: Sequence[Card]) -> None:
        raise NotImplementedError

    def delete_source(self, source_id: str) -> int:
        raise NotImplementedError

    def replace_source(
        self,
        source_id: str,
        cards: Sequence[Card],
        *,
        progress: Callable[[int], object] | None = None,
    ) -> None:
        raise NotImplementedError

    def search(
        self,
        query: str,
        where: SearchFilter,
        k: int,
        *,
        quality: Quality = "precise",
        lexical: bool = True,
    ) -> list[Hit]:
        self.searches.append((query, where, k, quality))
        return [Hit(card=card, score=1.0) for card in catechism_cards()[:k]]

    def count(self, collection: str | None = None) -> int:
        return 5

    def source_counts(self, where: SearchFilter) -> dict[str, int]:
        raise NotImplementedError


CATECHISM = SearchFilter(collections=["catechism"])


def test_given_options_when_answering_then_the_search_gets_scope_tags_and_quality() -> None:
    index = SpyIndex()
    service = AnswerService(index, ScriptedGenerator(["God made us. [1]"]), k=3)
    turns = [Turn("user", "Why did God make us?"), Turn("user", "And who?")]

    scope = SearchFilter(collections=["catechism"], tags=["creed"])
    service.answer(turns, scope, AnswerOptions(quality="fast"))

    query, where, k, quality = index.searches[0]
    assert query == "And who? god make us"
    # The answer reads k passages, one section at a time, from a pool of POOL_FACTOR * k.
    assert (where, k, quality) == (scope, 3 * POOL_FACTOR, "fast")


def test_given_a_stream_when_pulled_then_deltas_come_before_one_finish() -> None:
    generator = ScriptedGenerator(["God made ", "us. [1] Prayer is the lifting up. [3]"])
    service = AnswerService(SpyIndex(), generator, k=5)

    events = list(service.stream([Turn("user", "Who made us?")], CATECHISM))

    assert all(isinstance(e, Delta) for e in events[:-1])
    finish = events[-1]
    assert isinstance(finish, Finish)
    text = "".join(e.text for e in events if isinstance(e, Delta))
    assert text == "God made us. [1] Prayer is the lifting up. [2]"
    assert [c.document_reference for c in finish.citations] == ["1", "3"]
    assert finish.completion_tokens > 0
    assert generator.closed


def test_given_a_consumer_that_stops_early_then_the_generator_is_closed() -> None:
    generator = ScriptedGenerator(["God made us. ", "More. ", "Even more. "])
    stream = AnswerService(SpyIndex(), generator, k=5).stream(
        [Turn("user", "Who made us?")], CATECHISM
    )

    assert isinstance(next(stream), Delta)
    stream.close()

    assert generator.closed
