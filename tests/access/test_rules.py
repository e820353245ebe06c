"""The rules of ``Access``: grants into the search filter, and whether what was answered from
an earlier filter may be shown under the grants of now."""

from __future__ import annotations

import pytest

from groundwork.auth.access import Access, restriction_fingerprint
from groundwork.chat.history import stored_history
from groundwork.retrieval.base import Restriction, SearchFilter
from groundwork.storage.records import QuestionRecord

PUBLIC = Restriction(tags=["public"])
WHOLE_WIKI = Access({"handbook": PUBLIC, "wiki": None})


def test_given_a_partial_grant_when_narrowing_then_only_searched_collections_are_restricted() -> (
    None
):
    handbook = WHOLE_WIKI.narrow(SearchFilter(collections=["handbook", "wiki"], tags=["x"]))
    wiki = WHOLE_WIKI.narrow(SearchFilter(collections=["wiki"]))

    assert handbook.restricted == {"handbook": PUBLIC}
    assert handbook.tags == ["x"]
    assert wiki.restricted == {}
    assert restriction_fingerprint(wiki) is None
    assert restriction_fingerprint(handbook) == restriction_fingerprint(
        Access({"handbook": Restriction(tags=["public"])}).narrow(handbook)
    )
    assert restriction_fingerprint(handbook) != restriction_fingerprint(
        Access({"handbook": Restriction(tags=["board"])}).narrow(handbook)
    )


@pytest.mark.parametrize(
    ("collection", "source", "tags", "seen"),
    [
        ("wiki", "w1", [], True),
        ("handbook", "news", ["public", "board"], True),
        ("handbook", "minutes", ["board"], False),
        ("handbook", None, [], False),  # an admin's starter about the whole collection
        ("secret", "s1", ["public"], False),
    ],
)
def test_given_grants_when_asking_what_a_card_shows_then_its_collection_tags_and_source_decide(
    collection: str, source: str | None, tags: list[str], seen: bool
) -> None:
    assert WHOLE_WIKI.sees(collection, source, tags) is seen


def scope(**fields: object) -> object:
    return SearchFilter.model_validate(fields).model_dump(mode="json", exclude_none=True)


@pytest.mark.parametrize(
    ("asked_in", "now", "shown"),
    [
        # Asked with the whole handbook: shown while it is whole, not once narrowed.
        (scope(collections=["handbook"]), {"handbook": None}, True),
        (scope(collections=["handbook"]), {"handbook": PUBLIC}, False),
        (scope(collections=["handbook"]), {}, False),
        # Asked seeing the public part: shown under that grant, a wider one or the whole.
        (scope(collections=["handbook"], restricted={"handbook": PUBLIC}), {"handbook": PUBLIC},
         True),
        (scope(collections=["handbook"], restricted={"handbook": PUBLIC}),
         {"handbook": Restriction(tags=["public", "hr"])}, True),
        (scope(collections=["handbook"], restricted={"handbook": PUBLIC}),
         {"handbook": Restriction(tags=["hr"])}, False),
        # Asked within tags or a source the grant of now holds.
        (scope(collections=["handbook"], tags=["public"]), {"handbook": PUBLIC}, True),
        (scope(collections=["handbook"], source_ids=["runbook"]),
         {"handbook": Restriction(source_ids=["runbook"])}, True),
        (scope(collections=["handbook", "wiki"]), {"handbook": None}, False),
        # Nothing to judge it by: hidden.
        (None, {"handbook": None}, False),
        ({"collections": []}, {"handbook": None}, False),
    ],
)  # fmt: skip
def test_given_an_answer_asked_in_a_scope_when_grants_change_then_it_shows_only_if_covered(
    asked_in: object, now: dict[str, Restriction | None], shown: bool
) -> None:
    assert Access(now).covers(asked_in) is shown  # type: ignore[arg-type]


def test_given_a_history_with_an_answer_no_longer_visible_then_only_its_question_stays() -> None:
    def asked(text: str, answer: str, **where: object) -> QuestionRecord:
        return QuestionRecord(
            id=len(text), conversation_id="c", question=text, answer_id="a", answer=answer,
            created=0, details={"scope": scope(**where)},
        )  # fmt: skip

    history = stored_history(
        [
            asked("Board?", "The board approved the merger.", collections=["handbook"]),
            asked("Open?", "At nine.", collections=["handbook"], restricted={"handbook": PUBLIC}),
        ],
        Access({"handbook": PUBLIC}),
    )

    assert history == [("Board?", ""), ("Open?", "At nine.")]
