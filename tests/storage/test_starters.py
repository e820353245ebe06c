"""Starters: an admin's come first, a source's proposals are replaced as a whole."""

from __future__ import annotations

import pytest

from groundwork.storage.errors import AlreadyExists
from groundwork.storage.starters import StarterRecord, proposal_id
from groundwork.storage.stores import Stores
from tests.storage.conftest import FakeClock


def _proposals(source_id: str, *texts: str, collection: str = "c") -> list[StarterRecord]:
    return [
        StarterRecord(
            id=proposal_id(collection, source_id, text),
            collection=collection,
            text=text,
            language="en",
            source_id=source_id,
            origin="proposed",
            rank=rank,
        )
        for rank, text in enumerate(texts)
    ]


def _admin(text: str, created: int, starter_id: str, collection: str = "c") -> StarterRecord:
    return StarterRecord(
        id=starter_id, collection=collection, text=text, language="de", created=created
    )


def test_given_admin_starters_and_proposals_when_listed_then_admins_first_then_by_rank(
    stores: Stores,
) -> None:
    starters = stores.starters
    starters.replace_proposals("c", "s2", _proposals("s2", "S2 first?", "S2 second?"))
    starters.replace_proposals("c", "s1", _proposals("s1", "S1 first?", "S1 second?"))
    starters.add(_admin("Later admin?", 20, "st_b"))
    starters.add(_admin("Earlier admin?", 10, "st_z"))
    starters.add(_admin("Elsewhere?", 5, "st_x", collection="other"))

    listed = starters.list_starters("c")

    assert [s.text for s in listed] == [
        "Earlier admin?",
        "Later admin?",
        "S1 first?",
        "S2 first?",
        "S1 second?",
        "S2 second?",
    ]
    assert listed[0] == _admin("Earlier admin?", 10, "st_z")
    assert [s.text for s in starters.list_starters("other")] == ["Elsewhere?"]
    with pytest.raises(AlreadyExists):
        starters.add(_admin("Later admin?", 20, "st_b"))


def test_given_a_source_reingested_when_its_proposals_are_replaced_then_only_the_new_ones_stay(
    stores: Stores,
) -> None:
    starters = stores.starters
    starters.replace_proposals("c", "s1", _proposals("s1", "Old one?", "Old two?", "Old three?"))
    starters.replace_proposals("c", "s2", _proposals("s2", "Other source?"))
    starters.add(_admin("Admin?", 1, "st_a"))

    starters.replace_proposals("c", "s1", _proposals("s1", "New one?"))

    assert [s.text for s in starters.list_starters("c")] == ["Admin?", "New one?", "Other source?"]
    starters.replace_proposals("c", "s1", [])
    assert [s.text for s in starters.list_starters("c")] == ["Admin?", "Other source?"]


def test_given_starters_when_one_is_removed_then_only_that_one_goes(
    stores: Stores, clock: FakeClock
) -> None:
    starters = stores.starters
    proposal = _proposals("s1", "Proposed?")[0]
    starters.replace_proposals("c", "s1", [proposal])
    starters.add(_admin("Admin?", int(clock()), "st_a"))

    assert starters.remove("other", "st_a") is False
    assert starters.remove("c", "st_a") is True
    assert starters.remove("c", "st_a") is False
    assert starters.remove("c", proposal.id) is True
    assert starters.list_starters("c") == []


def test_given_proposals_of_another_source_when_replacing_then_they_are_refused(
    stores: Stores,
) -> None:
    with pytest.raises(ValueError, match="belong to the source"):
        stores.starters.replace_proposals("c", "s1", _proposals("s2", "Wrong source?"))
    with pytest.raises(ValueError, match="at most"):
        stores.starters.replace_proposals("c", "s1", _proposals("s1", *"abcdefghijk"))
    assert stores.starters.list_starters("c") == []
