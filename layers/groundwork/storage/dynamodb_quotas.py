"""Quotas in the DynamoDB table: one conditional ``UpdateItem`` takes questions and credits.

The item (``USER#<id>`` / ``QUOTA``) keeps what is left and what was used as numbers; a
missing "left" attribute means unlimited. Conditions cannot do arithmetic, so what is left is
stored (not the limit) and compared with what is asked for: ``questions_left >= :q``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from groundwork.storage.dynamodb_table import ConditionFailed, key, n, number
from groundwork.storage.errors import QuotaExceeded, StorageError
from groundwork.storage.quotas import QuotaStore
from groundwork.storage.records import QuotaRecord

if TYPE_CHECKING:
    from groundwork.storage.dynamodb_table import DynamoTable, Item

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

    def consume(self, user_id: str, *, questions: int = 1, credits: int = 0) -> QuotaRecord:
        return self._move(user_id, questions, credits, check=True)

    def refund(self, user_id: str, *, questions: int = 1, credits: int = 0) -> QuotaRecord:
        return self._move(user_id, -questions, -credits, check=False)

    def _move(self, user_id: str, questions: int, credits: int, *, check: bool) -> QuotaRecord:
        """Take (or, with negative amounts, give back) in one conditional update.

        The condition pins which limits the item had when read and, when checking, that
        enough is left; a refused update changes nothing.
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
            try:
                reply = self._table.call(
                    "update_item",
                    TableName=self._table.name,
                    Key=_key(user_id),
                    UpdateExpression="ADD questions_used :q, credits_used :c"
                    + (" SET " + ", ".join(sets) if sets else ""),
                    ConditionExpression=" AND ".join(conditions),
                    ExpressionAttributeValues={":q": n(questions), ":c": n(credits)},
                    ReturnValues="ALL_NEW",
                    ReturnValuesOnConditionCheckFailure="ALL_OLD",
                )
            except ConditionFailed as error:
                if _limits_in(error.item) == present:
                    quota = _record(user_id, error.item)
                    raise QuotaExceeded(_short(quota, questions)) from error
                item = error.item
                continue
            return _record(user_id, reply["Attributes"])
        raise StorageError(f"the quota of {user_id} kept changing")


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
