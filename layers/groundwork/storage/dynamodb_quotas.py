"""Quotas in the DynamoDB table: one conditional ``UpdateItem`` takes questions and credits.

The item (``USER#<id>`` / ``QUOTA``) keeps what is left and what was used as numbers; a
missing "left" attribute means unlimited. Conditions cannot do arithmetic, so what is left is
stored (not the limit) and compared with what is asked for: ``questions_left >= :q``.

A charge (``USER#<id>`` / ``CHARGE#<request_id>``, its ``owner`` and TTL ``expiration``) is put
in one transaction with the update, on condition that it is not there (or expired): a second
consume of the same request fails that condition and takes nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from groundwork.storage.dynamodb_table import (
    TTL_ATTRIBUTE,
    ConditionFailed,
    TransactionCanceled,
    key,
    n,
    number,
    s,
)
from groundwork.storage.errors import QuotaExceeded, StorageError
from groundwork.storage.quotas import QuotaStore
from groundwork.storage.records import QuotaRecord

if TYPE_CHECKING:
    from groundwork.storage.dynamodb_table import DynamoTable, Item
    from groundwork.storage.quotas import Charge

#: Rereads when the item changed shape (a limit set or lifted) between the read and the write.
_SHAPE_RETRIES = 5
_LIMITS = (("questions_left", ":q"), ("credits_left", ":c"))


class DynamoDBQuotaStore(QuotaStore):
    def __init__(self, table: DynamoTable) -> None:
        self._table = table

    def set_quota(
        self, user_id: str, *, questions_left: int | None, credits_left: int | None
    ) -> QuotaRecord:
        sets = [
            "questions_used = if_not_exists(questions_used, :zero)",
            "credits_used = if_not_exists(credits_used, :zero)",
        ]
        removes: list[str] = []
        values: dict[str, Any] = {":zero": n(0)}
        for name, value in (("questions_left", questions_left), ("credits_left", credits_left)):
            if value is None:
                removes.append(name)
            else:
                sets.append(f"{name} = :{name}")
                values[f":{name}"] = n(value)
        expression = "SET " + ", ".join(sets) + (" REMOVE " + ", ".join(removes) if removes else "")
        reply = self._table.call(
            "update_item",
            TableName=self._table.name,
            Key=_key(user_id),
            UpdateExpression=expression,
            ExpressionAttributeValues=values,
            ReturnValues="ALL_NEW",
        )
        return _record(user_id, reply["Attributes"])

    def get_quota(self, user_id: str) -> QuotaRecord:
        return _record(user_id, self._table.get(f"USER#{user_id}", "QUOTA"))

    def consume(
        self, user_id: str, *, questions: int = 1, credits: int = 0, charge: Charge | None = None
    ) -> QuotaRecord:
        if charge is None:
            return self._move(user_id, questions, credits, check=True)
        now = self._table.now()
        mark = {
            "Put": {
                "TableName": self._table.name,
                "Item": _charge_key(user_id, charge)
                | {"owner": s(charge.owner), TTL_ATTRIBUTE: n(now + charge.keep_seconds)},
                "ConditionExpression": "attribute_not_exists(pk) OR #expiration <= :now",
                "ExpressionAttributeNames": {"#expiration": TTL_ATTRIBUTE},
                "ExpressionAttributeValues": {":now": n(now)},
            }
        }
        try:
            return self._move(user_id, questions, credits, check=True, guard=mark)
        except _Guarded:
            # Already charged: the run that took the request over holds the charge now.
            self._table.call(
                "update_item",
                TableName=self._table.name,
                Key=_charge_key(user_id, charge),
                UpdateExpression="SET #owner = :owner",
                ExpressionAttributeNames={"#owner": "owner"},
                ExpressionAttributeValues={":owner": s(charge.owner)},
            )
            return self.get_quota(user_id)

    def refund(
        self, user_id: str, *, questions: int = 1, credits: int = 0, charge: Charge | None = None
    ) -> QuotaRecord:
        if charge is None:
            return self._move(user_id, -questions, -credits, check=False)
        held = {
            "Delete": {
                "TableName": self._table.name,
                "Key": _charge_key(user_id, charge),
                "ConditionExpression": "#owner = :owner AND #expiration > :now",
                "ExpressionAttributeNames": {"#owner": "owner", "#expiration": TTL_ATTRIBUTE},
                "ExpressionAttributeValues": {
                    ":owner": s(charge.owner),
                    ":now": n(self._table.now()),
                },
            }
        }
        try:
            return self._move(user_id, -questions, -credits, check=False, guard=held)
        except _Guarded:
            return self.get_quota(user_id)  # not this run's charge: nothing to give back

    def _move(
        self,
        user_id: str,
        questions: int,
        credits: int,
        *,
        check: bool,
        guard: dict[str, Any] | None = None,
    ) -> QuotaRecord:
        """Take (or, with negative amounts, give back) in one conditional update.

        The condition pins which limits the item had when read and, when checking, that
        enough is left; a refused update changes nothing. With ``guard``, a transaction
        action written with the update, a failed guard raises ``_Guarded`` and changes nothing.
        """
        item = self._table.get(f"USER#{user_id}", "QUOTA")
        for _ in range(_SHAPE_RETRIES):
            present = _limits_in(item)
            conditions = [
                (f"{a} >= {v}" if check else f"attribute_exists({a})")
                if a in present
                else f"attribute_not_exists({a})"
                for a, v in _LIMITS
            ]
            sets = [f"{a} = {a} - {v}" for a, v in _LIMITS if a in present]
            update = {
                "TableName": self._table.name,
                "Key": _key(user_id),
                "UpdateExpression": "ADD questions_used :q, credits_used :c"
                + (" SET " + ", ".join(sets) if sets else ""),
                "ConditionExpression": " AND ".join(conditions),
                "ExpressionAttributeValues": {":q": n(questions), ":c": n(credits)},
                "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
            }
            try:
                if guard is None:
                    reply = self._table.call("update_item", **update, ReturnValues="ALL_NEW")
                    return _record(user_id, reply["Attributes"])
                self._table.call("transact_write_items", TransactItems=[guard, {"Update": update}])
                return self.get_quota(user_id)
            except ConditionFailed as error:
                old = error.item
            except TransactionCanceled as error:
                if error.failed(0):
                    raise _Guarded from error
                old = error.reasons[1][1]
            if _limits_in(old) == present:
                raise QuotaExceeded(_short(_record(user_id, old), questions))
            item = old
        raise StorageError(f"the quota of {user_id} kept changing")


class _Guarded(Exception):
    """The guard of a quota transaction failed: the charge was taken, or is not this run's."""


def _charge_key(user_id: str, charge: Charge) -> Item:
    return key(f"USER#{user_id}", f"CHARGE#{charge.request_id}")


def _limits_in(item: Item | None) -> frozenset[str]:
    return frozenset(a for a, _ in _LIMITS if item is not None and a in item)


def _short(quota: QuotaRecord, questions: int) -> str:
    if quota.questions_left is not None and quota.questions_left < questions:
        return "questions"
    return "credits"


def _key(user_id: str) -> Item:
    return key(f"USER#{user_id}", "QUOTA")


def _record(user_id: str, item: Item | None) -> QuotaRecord:
    if item is None:
        return QuotaRecord(user_id=user_id)
    return QuotaRecord(
        user_id=user_id,
        questions_left=number(item, "questions_left"),
        credits_left=number(item, "credits_left"),
        questions_used=number(item, "questions_used") or 0,
        credits_used=number(item, "credits_used") or 0,
    )
