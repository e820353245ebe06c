"""Sources and answers in the DynamoDB table; a collection's sources are listed through gsi1."""

from __future__ import annotations

from typing import TYPE_CHECKING

from groundwork.storage.base import SourceRecord, Storage
from groundwork.storage.dynamodb_table import key, s, text

if TYPE_CHECKING:
    from groundwork.storage.dynamodb_table import DynamoTable


class DynamoDBStorage(Storage):
    def __init__(self, table: DynamoTable) -> None:
        self._table = table

    def put_source(self, source: SourceRecord) -> None:
        self._table.call(
            "put_item",
            TableName=self._table.name,
            Item={
                **key(f"SOURCE#{source.id}", "SOURCE"),
                "gsi1pk": s(f"COLLECTION#{source.collection}"),
                "gsi1sk": s(f"SOURCE#{source.id}"),
                "body": s(source.model_dump_json()),
            },
        )

    def get_source(self, source_id: str) -> SourceRecord | None:
        item = self._table.get(f"SOURCE#{source_id}", "SOURCE")
        return SourceRecord.model_validate_json(text(item, "body")) if item else None

    def delete_source(self, source_id: str) -> bool:
        return self._table.delete(f"SOURCE#{source_id}", "SOURCE")

    def list_sources(self, collection: str) -> list[SourceRecord]:
        items = self._table.query(f"COLLECTION#{collection}", "SOURCE#", index="gsi1")
        return [SourceRecord.model_validate_json(text(item, "body")) for item in items]
