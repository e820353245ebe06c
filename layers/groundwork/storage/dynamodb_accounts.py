"""Users, API key hashes, collections and grants in the DynamoDB table.

A user's grants live in the user's partition (``USER#<id>`` / ``GRANT#<collection>``), so
the collections a user sees are one query. Creating a key or a grant checks, in the same
transaction, that the user (and the collection) exist.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from groundwork.storage.accounts import AccountStore
from groundwork.storage.dynamodb_table import (
    ConditionFailed,
    TransactionCanceled,
    key,
    s,
    text,
)
from groundwork.storage.errors import AlreadyExists, NotFound
from groundwork.storage.records import ApiKeyRecord, CollectionRecord, GrantRecord, UserRecord

if TYPE_CHECKING:
    from groundwork.storage.dynamodb_table import DynamoTable, Item


class DynamoDBAccountStore(AccountStore):
    def __init__(self, table: DynamoTable) -> None:
        self._table = table

    def create_user(self, user_id: str, name: str) -> UserRecord:
        user = UserRecord(id=user_id, name=name, created=self._now())
        self._create({**_user_key(user_id), "body": s(user.model_dump_json())}, f"user {user_id}")
        return user

    def get_user(self, user_id: str) -> UserRecord | None:
        item = self._table.get(*_pk_sk(_user_key(user_id)))
        return UserRecord.model_validate_json(text(item, "body")) if item else None

    def revoke_api_key(self, key_hash: str) -> bool:
        return self._table.delete(f"APIKEY#{key_hash}", "APIKEY")

    def create_collection(self, name: str, title: str | None = None) -> CollectionRecord:
        collection = CollectionRecord(name=name, title=title, created=self._now())
        item = {
            **_collection_key(name),
            "gsi1pk": s("COLLECTIONS"),
            "gsi1sk": s(name),
            "body": s(collection.model_dump_json()),
        }
        self._create(item, f"collection {name}")
        return collection

    def get_collection(self, name: str) -> CollectionRecord | None:
        item = self._table.get(*_pk_sk(_collection_key(name)))
        return CollectionRecord.model_validate_json(text(item, "body")) if item else None

    def list_collections(self) -> list[CollectionRecord]:
        items = self._table.query("COLLECTIONS", index="gsi1")
        return [CollectionRecord.model_validate_json(text(item, "body")) for item in items]

    def _put_grant(self, record: GrantRecord) -> None:
        item = {
            **key(f"USER#{record.user_id}", f"GRANT#{record.collection}"),
            "body": s(record.model_dump_json()),
        }
        self._put_checked(item, [_user_key(record.user_id), _collection_key(record.collection)])

    def revoke(self, user_id: str, collection: str) -> bool:
        return self._table.delete(f"USER#{user_id}", f"GRANT#{collection}")

    def grants(self, user_id: str) -> list[GrantRecord]:
        items = self._table.query(f"USER#{user_id}", "GRANT#")
        return [GrantRecord.model_validate_json(text(item, "body")) for item in items]

    def can_see(self, user_id: str, collection: str) -> bool:
        return self._table.get(f"USER#{user_id}", f"GRANT#{collection}") is not None

    def _put_api_key(self, record: ApiKeyRecord) -> None:
        item = {**key(f"APIKEY#{record.key_hash}", "APIKEY"), "body": s(record.model_dump_json())}
        self._put_checked(item, [_user_key(record.user_id)])

    def _get_api_key(self, key_hash: str) -> ApiKeyRecord | None:
        item = self._table.get(f"APIKEY#{key_hash}", "APIKEY")
        return ApiKeyRecord.model_validate_json(text(item, "body")) if item else None

    def _now(self) -> int:
        return self._table.now()

    def _create(self, item: Item, what: str) -> None:
        try:
            self._table.call(
                "put_item",
                TableName=self._table.name,
                Item=item,
                ConditionExpression="attribute_not_exists(pk)",
            )
        except ConditionFailed as error:
            raise AlreadyExists(what) from error

    def _put_checked(self, item: Item, must_exist: list[Item]) -> None:
        """Put ``item`` if every key in ``must_exist`` names an item, in one transaction."""
        checks = [
            {
                "ConditionCheck": {
                    "TableName": self._table.name,
                    "Key": k,
                    "ConditionExpression": "attribute_exists(pk)",
                }
            }
            for k in must_exist
        ]
        try:
            self._table.call(
                "transact_write_items",
                TransactItems=[*checks, {"Put": {"TableName": self._table.name, "Item": item}}],
            )
        except TransactionCanceled as error:
            missing = [text(k, "pk") for i, k in enumerate(must_exist) if error.failed(i)]
            raise NotFound(", ".join(missing)) from error


def _user_key(user_id: str) -> Item:
    return key(f"USER#{user_id}", "USER")


def _collection_key(name: str) -> Item:
    return key(f"COLLECTION#{name}", "COLLECTION")


def _pk_sk(item_key: Item) -> tuple[str, str]:
    return text(item_key, "pk"), text(item_key, "sk")
