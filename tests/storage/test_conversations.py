"""Conversations as trees of versions, saved scope, and questions written with their request."""

from __future__ import annotations

import pytest

from groundwork.storage.errors import AlreadyExists, NotFound, NotOwner
from groundwork.storage.records import (
    ClaimOutcome,
    Completion,
    IdempotencyStatus,
)
from groundwork.storage.stores import Stores
from tests.storage.conftest import question


def _feed(stores: Stores, conversation_id: str = "c1") -> list[tuple[int, list[int]]]:
    return [
        (t.selected.id, [v.id for v in t.versions])
        for t in stores.conversations.feed(conversation_id)
    ]


@pytest.fixture
def conversation(stores: Stores) -> Stores:
    stores.conversations.create_conversation("c1", "u1", settings={"quality": "fast"})
    return stores


def test_given_questions_when_added_then_the_feed_lists_them_as_turns_in_order(
    conversation: Stores,
) -> None:
    for question_id, text in ((11, "one"), (12, "two"), (13, "three")):
        conversation.conversations.add_question(question(question_id, text))

    assert _feed(conversation) == [(11, [11]), (12, [12]), (13, [13])]
    stored = conversation.conversations.get_question("c1", 12)
    assert stored is not None
    assert (stored.parent_id, stored.turn_id, stored.seq) == (11, 12, 2)
    record = conversation.conversations.get_conversation("c1")
    assert record is not None
    assert record.questions == 3


def test_given_a_version_of_a_turn_when_added_then_later_turns_hide_until_the_old_one_is_selected(
    conversation: Stores,
) -> None:
    for question_id, text in ((11, "one"), (12, "two"), (13, "three")):
        conversation.conversations.add_question(question(question_id, text))

    version = conversation.conversations.add_question(question(22, "two, edited"), version_of=12)

    assert (version.turn_id, version.parent_id) == (12, 11)
    assert _feed(conversation) == [(11, [11]), (22, [12, 22])]
    conversation.conversations.add_question(question(24, "four"))
    assert _feed(conversation) == [(11, [11]), (22, [12, 22]), (24, [24])]
    assert [q.id for q in conversation.conversations.branch("c1", 24)] == [11, 22, 24]

    conversation.conversations.select_version("c1", 12)

    assert _feed(conversation) == [(11, [11]), (12, [12, 22]), (13, [13])]
    assert [q.id for q in conversation.conversations.branch("c1", 13)] == [11, 12, 13]


def test_given_a_version_of_the_first_turn_when_added_then_it_replaces_the_whole_branch(
    conversation: Stores,
) -> None:
    conversation.conversations.add_question(question(11, "one"))
    conversation.conversations.add_question(question(12, "two"))

    conversation.conversations.add_question(question(21, "one again"), version_of=11)
    conversation.conversations.add_question(question(31, "one, third"), version_of=21)

    assert _feed(conversation) == [(31, [11, 21, 31])]


def test_given_a_question_of_another_conversation_when_versioned_then_not_found(
    conversation: Stores,
) -> None:
    conversation.conversations.create_conversation("c2", "u1")
    conversation.conversations.add_question(question(91, "elsewhere", "c2"))

    with pytest.raises(NotFound):
        conversation.conversations.add_question(question(12, "x"), version_of=91)
    with pytest.raises(NotFound):
        conversation.conversations.select_version("c1", 91)

    assert conversation.conversations.get_question("c1", 91) is None
    assert _feed(conversation) == []


def test_given_no_conversation_when_a_question_is_added_then_not_found(stores: Stores) -> None:
    with pytest.raises(NotFound):
        stores.conversations.add_question(question(1, "q", "missing"))
    with pytest.raises(NotFound):
        stores.conversations.feed("missing")


def test_given_a_taken_question_id_when_added_again_then_already_exists(
    conversation: Stores,
) -> None:
    conversation.conversations.add_question(question(11, "one"))

    with pytest.raises(AlreadyExists):
        conversation.conversations.add_question(question(11, "one again"))

    assert _feed(conversation) == [(11, [11])]


def test_given_a_scope_when_saved_and_reset_then_the_conversation_keeps_the_last_one(
    conversation: Stores,
) -> None:
    scope = {"collections": ["finance"], "tags": ["q3"]}

    conversation.conversations.set_scope("c1", scope)
    saved = conversation.conversations.get_conversation("c1")
    conversation.conversations.set_scope("c1", None)
    reset = conversation.conversations.get_conversation("c1")

    assert saved is not None
    assert saved.scope == scope
    assert reset is not None
    assert reset.scope is None
    assert reset.settings == {"quality": "fast"}
    with pytest.raises(NotFound):
        conversation.conversations.set_scope("missing", scope)


def test_given_a_version_with_another_quality_when_added_then_the_settings_stay(
    conversation: Stores,
) -> None:
    conversation.conversations.add_question(question(11, "one"))

    precise = question(21, "one").model_copy(update={"quality": "precise"})
    conversation.conversations.add_question(precise, version_of=11)

    record = conversation.conversations.get_conversation("c1")
    assert record is not None
    assert record.settings == {"quality": "fast"}
    assert conversation.conversations.set_settings("c1", {"quality": "precise"}).settings == {
        "quality": "precise"
    }


def test_given_a_claimed_request_when_its_question_is_added_then_the_record_completes_with_it(
    conversation: Stores,
) -> None:
    conversation.idempotency.claim("u1", "r1", "worker-a", lease_seconds=30)
    completion = Completion(
        user_id="u1", request_id="r1", owner="worker-a", response={"question_id": 11}
    )

    conversation.conversations.add_question(question(11, "one"), completion=completion)

    retry = conversation.idempotency.claim("u1", "r1", "worker-b", lease_seconds=30)
    assert retry.outcome is ClaimOutcome.COMPLETE
    assert retry.record.response == {"question_id": 11}


def test_given_a_request_taken_over_when_the_old_owner_adds_its_question_then_nothing_is_written(
    conversation: Stores,
) -> None:
    conversation.idempotency.claim("u1", "r1", "worker-a", lease_seconds=30)
    conversation.idempotency.release("u1", "r1", "worker-a")
    conversation.idempotency.claim("u1", "r1", "worker-b", lease_seconds=30)
    late = Completion(user_id="u1", request_id="r1", owner="worker-a", response={})

    with pytest.raises(NotOwner):
        conversation.conversations.add_question(question(11, "one"), completion=late)

    assert _feed(conversation) == []
    record = conversation.conversations.get_conversation("c1")
    assert record is not None
    assert record.questions == 0
    current = conversation.idempotency.get("u1", "r1")
    assert current is not None
    assert (current.owner, current.status) == ("worker-b", IdempotencyStatus.IN_PROGRESS)
