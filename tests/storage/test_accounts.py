"""Users, API keys, collections and grants: the same behaviour on every backend."""

from __future__ import annotations

import pytest

from groundwork.storage.errors import AlreadyExists, NotFound
from groundwork.storage.records import hash_api_key
from groundwork.storage.stores import Stores


def test_given_a_user_when_a_key_is_issued_then_the_key_authenticates_and_only_its_hash_is_kept(
    stores: Stores,
) -> None:
    stores.accounts.create_user("u1", "Ada")

    key = stores.accounts.issue_api_key("u1", label="laptop")

    user = stores.accounts.authenticate(key)
    assert user is not None
    assert user.id == "u1"
    assert stores.accounts.authenticate(key + "x") is None
    assert stores.accounts._get_api_key(key) is None
    record = stores.accounts._get_api_key(hash_api_key(key))
    assert record is not None
    assert record.key_hash == hash_api_key(key) != key
    assert key not in record.model_dump_json()


def test_given_a_revoked_key_when_it_authenticates_then_no_user_is_found(stores: Stores) -> None:
    stores.accounts.create_user("u1", "Ada")
    key = stores.accounts.issue_api_key("u1")

    assert stores.accounts.revoke_api_key(hash_api_key(key)) is True

    assert stores.accounts.authenticate(key) is None
    assert stores.accounts.revoke_api_key(hash_api_key(key)) is False


def test_given_no_user_when_a_key_is_issued_then_not_found(stores: Stores) -> None:
    with pytest.raises(NotFound):
        stores.accounts.issue_api_key("ghost")


def test_given_an_existing_user_when_created_again_then_already_exists(stores: Stores) -> None:
    stores.accounts.create_user("u1", "Ada")

    with pytest.raises(AlreadyExists):
        stores.accounts.create_user("u1", "Eve")

    user = stores.accounts.get_user("u1")
    assert user is not None
    assert user.name == "Ada"


def test_given_collections_when_listed_then_they_come_by_name(stores: Stores) -> None:
    stores.accounts.create_collection("zoo", "Zoo")
    stores.accounts.create_collection("alpha")

    names = [c.name for c in stores.accounts.list_collections()]

    assert names == ["alpha", "zoo"]
    assert stores.accounts.get_collection("zoo").title == "Zoo"  # type: ignore[union-attr]
    assert stores.accounts.get_collection("nope") is None
    with pytest.raises(AlreadyExists):
        stores.accounts.create_collection("alpha")


def test_given_grants_when_a_user_asks_then_it_sees_exactly_its_collections(
    stores: Stores,
) -> None:
    for name in ("u1", "u2"):
        stores.accounts.create_user(name, name)
    for name in ("handbook", "finance", "secret"):
        stores.accounts.create_collection(name)

    stores.accounts.grant("u1", "handbook")
    stores.accounts.grant("u1", "finance")
    stores.accounts.grant("u1", "finance")
    stores.accounts.grant("u2", "secret")

    assert stores.accounts.visible_collections("u1") == ["finance", "handbook"]
    assert stores.accounts.can_see("u1", "handbook") is True
    assert stores.accounts.can_see("u1", "secret") is False
    assert stores.accounts.revoke("u1", "finance") is True
    assert stores.accounts.revoke("u1", "finance") is False
    assert stores.accounts.visible_collections("u1") == ["handbook"]


@pytest.mark.parametrize(("user", "collection"), [("ghost", "handbook"), ("u1", "nope")])
def test_given_a_missing_user_or_collection_when_granted_then_not_found_and_nothing_stored(
    stores: Stores, user: str, collection: str
) -> None:
    stores.accounts.create_user("u1", "Ada")
    stores.accounts.create_collection("handbook")

    with pytest.raises(NotFound):
        stores.accounts.grant(user, collection)

    assert stores.accounts.visible_collections(user) == []


def test_given_grants_with_filters_when_listed_then_each_keeps_its_tags_and_sources(
    stores: Stores,
) -> None:
    stores.accounts.create_user("u1", "Ada")
    for name in ("handbook", "wiki", "finance"):
        stores.accounts.create_collection(name)

    stores.accounts.grant("u1", "wiki")
    stores.accounts.grant("u1", "handbook", tags=["public", "engineering", "public"])
    stores.accounts.grant("u1", "finance", source_ids=["report-2024"], tags=["summary"])

    grants = {g.collection: (g.tags, g.source_ids, g.whole) for g in stores.accounts.grants("u1")}
    assert [g.collection for g in stores.accounts.grants("u1")] == ["finance", "handbook", "wiki"]
    assert grants == {
        "finance": (["summary"], ["report-2024"], False),
        "handbook": (["engineering", "public"], [], False),
        "wiki": ([], [], True),
    }
    assert stores.accounts.visible_collections("u1") == ["finance", "handbook", "wiki"]
    assert stores.accounts.can_see("u1", "handbook") is True


def test_given_a_grant_when_granted_again_then_the_new_filter_replaces_the_old(
    stores: Stores,
) -> None:
    stores.accounts.create_user("u1", "Ada")
    stores.accounts.create_collection("handbook")
    stores.accounts.grant("u1", "handbook", tags=["public"])

    stores.accounts.grant("u1", "handbook", source_ids=["minutes"])
    narrowed = stores.accounts.grants("u1")
    stores.accounts.grant("u1", "handbook")
    widened = stores.accounts.grants("u1")

    assert [(g.tags, g.source_ids) for g in narrowed] == [([], ["minutes"])]
    assert [(g.tags, g.source_ids, g.whole) for g in widened] == [([], [], True)]
    assert stores.accounts.revoke("u1", "handbook") is True
    assert stores.accounts.grants("u1") == []
    assert stores.accounts.can_see("u1", "handbook") is False


def test_given_a_filtered_grant_of_a_missing_collection_then_not_found_and_nothing_stored(
    stores: Stores,
) -> None:
    stores.accounts.create_user("u1", "Ada")

    with pytest.raises(NotFound):
        stores.accounts.grant("u1", "nope", tags=["public"])

    assert stores.accounts.grants("u1") == []
