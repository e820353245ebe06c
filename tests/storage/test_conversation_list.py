"""A user's conversations, listed most recently updated first, a page at a time."""

from __future__ import annotations

import pytest

from groundwork.storage.conversations import InvalidCursor
from groundwork.storage.stores import Stores
from tests.storage.conftest import FakeClock, question


def _ids(stores: Stores, user_id: str, limit: int = 100) -> list[str]:
    page = stores.conversations.list_conversations(user_id, limit=limit)
    return [c.id for c in page.conversations]


def _all_pages(stores: Stores, user_id: str, limit: int) -> list[list[str]]:
    pages: list[list[str]] = []
    cursor = None
    while True:
        page = stores.conversations.list_conversations(user_id, limit=limit, cursor=cursor)
        pages.append([c.id for c in page.conversations])
        if page.next_cursor is None:
            return pages
        cursor = page.next_cursor


def test_given_conversations_when_listed_then_the_most_recently_updated_comes_first(
    stores: Stores, clock: FakeClock
) -> None:
    for conv_id in ("c1", "c2", "c3"):
        stores.conversations.create_conversation(conv_id, "u1")
        clock.advance(10)
    assert _ids(stores, "u1") == ["c3", "c2", "c1"]

    stores.conversations.add_question(question(11, "one", "c1"))

    assert _ids(stores, "u1") == ["c1", "c3", "c2"]
    listed = stores.conversations.list_conversations("u1", limit=1).conversations[0]
    assert (listed.updated, listed.questions) == (int(clock.now), 1)


def test_given_two_users_when_listed_then_each_sees_only_their_own(stores: Stores) -> None:
    stores.conversations.create_conversation("mine", "u1")
    stores.conversations.create_conversation("theirs", "u2")

    assert _ids(stores, "u1") == ["mine"]
    assert _ids(stores, "u2") == ["theirs"]
    assert _ids(stores, "nobody") == []
    empty = stores.conversations.list_conversations("nobody", limit=10)
    assert empty.next_cursor is None


def test_given_more_than_a_page_when_paged_then_every_conversation_comes_once_in_order(
    stores: Stores, clock: FakeClock
) -> None:
    # Pairs updated in the same second: ties are ordered by id, and cut across pages.
    for n in range(7):
        stores.conversations.create_conversation(f"c{n}", "u1")
        if n % 2:
            clock.advance(1)

    pages = _all_pages(stores, "u1", limit=2)

    assert pages == [["c6", "c5"], ["c4", "c3"], ["c2", "c1"], ["c0"]]
    assert _all_pages(stores, "u1", limit=7) == [["c6", "c5", "c4", "c3", "c2", "c1", "c0"]]


def test_given_questions_and_versions_when_listed_then_the_title_is_the_first_question(
    stores: Stores,
) -> None:
    stores.conversations.create_conversation("c1", "u1")
    assert stores.conversations.list_conversations("u1", limit=1).conversations[0].title is None

    stores.conversations.add_question(question(11, "What is prayer?", "c1"))
    stores.conversations.add_question(question(12, "And Baptism?", "c1"))
    stores.conversations.add_question(question(21, "What is grace?", "c1"), version_of=11)

    listed = stores.conversations.list_conversations("u1", limit=1).conversations[0]
    assert listed.title == "What is prayer?"


@pytest.mark.parametrize(
    "cursor", ["", "c1", "12.c1", "000000000012.", "x00000000012.c1", "000000000012#c1"]
)
def test_given_a_cursor_no_page_returned_when_listed_then_invalid_cursor(
    stores: Stores, cursor: str
) -> None:
    with pytest.raises(InvalidCursor):
        stores.conversations.list_conversations("u1", limit=10, cursor=cursor)
