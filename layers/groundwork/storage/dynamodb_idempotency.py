"""Idempotency records in the DynamoDB table, the way Powertools keeps them.

An item (``IDEMPOTENCY#<user>`` / ``REQUEST#<request_id>``) holds ``status``, ``owner`` and
the TTL attribute ``expiration`` next to the JSON body. A claim is a ``PutItem`` on condition
that no live item exists, and a refused claim reads the item that won from
``ReturnValuesOnConditionCheckFailure=ALL_OLD``, with no second read.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from groundwork.storage.dynamodb_table import (
    TTL_ATTRIBUTE,
    ConditionFailed,
    key,
    n,
    s,
    text,
)
from groundwork.storage.errors import NotOwner, StorageError
from groundwork.storage.idempotency import IdempotencyStore, claim_of, completed, in_progress
from groundwork.storage.records import (
    Claim,
    ClaimOutcome,
    IdempotencyRecord,
    IdempotencyStatus,
)

if TYPE_CHECKING:
    from groundwork.storage.dynamodb_table import DynamoTable, Item
    from groundwork.storage.records import Completion


class DynamoDBIdempotencyStore(IdempotencyStore):
    def __init__(self, table: DynamoTable) -> None:
        self._table = table

    def claim(
        self,
        user_id: str,
        request_id: str,
        owner: str,
        *,
        lease_seconds: int,
        payload_hash: str | None = None,
    ) -> Claim:
        now = self._table.now()
        record = in_progress(user_id, request_id, owner, lease_seconds, payload_hash, now)
        try:
            self._table.call(
                "put_item",
                TableName=self._table.name,
                Item=idempotency_item(record),
                ConditionExpression="attribute_not_exists(pk) OR #expiration <= :now",
                ExpressionAttributeNames={"#expiration": TTL_ATTRIBUTE},
                ExpressionAttributeValues={":now": n(now)},
                ReturnValuesOnConditionCheckFailure="ALL_OLD",
            )
        except ConditionFailed as error:
            if error.item is None:  # the condition holds for a missing item: never here
                raise StorageError(f"claim of {request_id} refused without an item") from error
            return claim_of(_record(error.item), owner, now)
        return Claim(outcome=ClaimOutcome.CLAIMED, record=record)

    def get(self, user_id: str, request_id: str) -> IdempotencyRecord | None:
        item = self._table.get(*_pk_sk(user_id, request_id))
        record = _record(item) if item else None
        return record if record and record.expiration > self._table.now() else None

    def renew(self, user_id: str, request_id: str, owner: str, *, lease_seconds: int) -> None:
        record = owned_record(self._table, user_id, request_id, owner)
        renewed = record.model_copy(update={"expiration": self._table.now() + lease_seconds})
        self._put_owned(renewed)

    def complete(self, completion: Completion) -> IdempotencyRecord:
        record = completion_record(self._table, completion)
        self._put_owned(record)
        return record

    def release(self, user_id: str, request_id: str, owner: str) -> bool:
        try:
            self._table.call(
                "delete_item",
                TableName=self._table.name,
                Key=key(*_pk_sk(user_id, request_id)),
                **owned_condition(owner),
            )
        except ConditionFailed:
            return False
        return True

    def _put_owned(self, record: IdempotencyRecord) -> None:
        try:
            self._table.call(
                "put_item",
                TableName=self._table.name,
                Item=idempotency_item(record),
                **owned_condition(record.owner),
            )
        except ConditionFailed as error:
            raise NotOwner(f"request {record.request_id} was taken over") from error


def completion_record(table: DynamoTable, completion: Completion) -> IdempotencyRecord:
    """The complete record to write (``NotOwner`` when the record is no longer the owner's)."""
    record = owned_record(table, completion.user_id, completion.request_id, completion.owner)
    return completed(record, completion.response, completion.retention_seconds, table.now())


def owned_record(
    table: DynamoTable, user_id: str, request_id: str, owner: str
) -> IdempotencyRecord:
    item = table.get(*_pk_sk(user_id, request_id))
    record = _record(item) if item else None
    if record is None or record.owner != owner:
        raise NotOwner(f"request {request_id} is not in progress for {owner}")
    if record.status is not IdempotencyStatus.IN_PROGRESS:
        raise NotOwner(f"request {request_id} is complete")
    return record


def owned_condition(owner: str) -> dict[str, Any]:
    """Holds while the item is the owner's in-progress record (a takeover changes ``owner``)."""
    return {
        "ConditionExpression": "#owner = :owner AND #status = :in_progress",
        "ExpressionAttributeNames": {"#owner": "owner", "#status": "status"},
        "ExpressionAttributeValues": {
            ":owner": s(owner),
            ":in_progress": s(IdempotencyStatus.IN_PROGRESS.value),
        },
    }


def idempotency_item(record: IdempotencyRecord) -> Item:
    return {
        **key(*_pk_sk(record.user_id, record.request_id)),
        "status": s(record.status.value),
        "owner": s(record.owner),
        TTL_ATTRIBUTE: n(record.expiration),
        "body": s(record.model_dump_json()),
    }


def _record(item: Item) -> IdempotencyRecord:
    return IdempotencyRecord.model_validate_json(text(item, "body"))


def _pk_sk(user_id: str, request_id: str) -> tuple[str, str]:
    return f"IDEMPOTENCY#{user_id}", f"REQUEST#{request_id}"
