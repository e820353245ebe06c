"""Starters in the DynamoDB table: one partition per collection, ``STARTERS#<name>``, sorted
by ``StarterRecord.sort_key``, so listing a collection's starters is one query.

A source's proposals sit at ``P#<rank>#<source>``: replacing them puts the new ranks and
deletes the ranks above them in one transaction, without reading first.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from groundwork.storage.dynamodb_table import ConditionFailed, key, s, text
from groundwork.storage.errors import AlreadyExists
from groundwork.storage.starters import (
    MAX_PROPOSALS_PER_SOURCE,
    StarterRecord,
    StarterStore,
    check_proposals,
)

if TYPE_CHECKING:
    from collections.abc import Sequence

    from groundwork.storage.dynamodb_table import DynamoTable, Item


class DynamoDBStarterStore(StarterStore):
    def __init__(self, table: DynamoTable) -> None:
        self._table = table

    def add(self, starter: StarterRecord) -> StarterRecord:
        try:
            self._table.call(
                "put_item",
                TableName=self._table.name,
                Item=_item(starter),
                ConditionExpression="attribute_not_exists(pk)",
            )
        except ConditionFailed as error:
            raise AlreadyExists(f"starter {starter.id}") from error
        return starter

    def remove(self, collection: str, starter_id: str) -> bool:
        # Ids are not keys: a collection holds a few dozen starters, read in one query.
        for starter in self.list_starters(collection):
            if starter.id == starter_id:
                return self._table.delete(_partition(collection), starter.sort_key)
        return False

    def list_starters(self, collection: str) -> list[StarterRecord]:
        items = self._table.query(_partition(collection))
        return [StarterRecord.model_validate_json(text(item, "body")) for item in items]

    def replace_proposals(
        self, collection: str, source_id: str, starters: Sequence[StarterRecord]
    ) -> None:
        check_proposals(source_id, starters)
        name = self._table.name
        actions: list[Item] = [
            {"Put": {"TableName": name, "Item": _item(starter)}} for starter in starters
        ]
        actions += [
            {
                "Delete": {
                    "TableName": name,
                    "Key": key(_partition(collection), f"P#{rank:02d}#{source_id}"),
                }
            }
            for rank in range(len(starters), MAX_PROPOSALS_PER_SOURCE)
        ]
        self._table.call("transact_write_items", TransactItems=actions)


def _partition(collection: str) -> str:
    return f"STARTERS#{collection}"


def _item(starter: StarterRecord) -> Item:
    return {
        **key(_partition(starter.collection), starter.sort_key),
        "body": s(starter.model_dump_json()),
    }
