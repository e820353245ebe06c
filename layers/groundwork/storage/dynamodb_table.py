"""The DynamoDB single table every cloud store shares, behind a client that retries.

One table, partition key ``pk`` and sort key ``sk`` (strings), one global secondary index
``gsi1`` (``gsi1pk``, ``gsi1sk``) for listings, and the TTL attribute ``expiration``. Items
keep the record's pydantic JSON in ``body`` next to the attributes conditions read.
"""

from __future__ import annotations

import random
import threading
import time
import uuid
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from groundwork.circuit import Circuit
from groundwork.storage.clock import system_clock
from groundwork.storage.errors import StorageUnavailable

if TYPE_CHECKING:
    from collections.abc import Callable

    from groundwork.storage.clock import Clock

Item = dict[str, Any]

TTL_ATTRIBUTE = "expiration"

#: Error codes of a request that did not happen and may be sent again.
_RETRYABLE_CODES = frozenset(
    {
        "ProvisionedThroughputExceededException",
        "ThrottlingException",
        "RequestLimitExceeded",
        "InternalServerError",
        "ServiceUnavailable",
        "TransactionInProgressException",
    }
)
#: Cancellation reasons of a transaction that did not happen because of load, not of a condition.
_RETRYABLE_REASONS = frozenset(
    {"TransactionConflict", "ThrottlingError", "ProvisionedThroughputExceeded"}
)


def table_definition(name: str) -> dict[str, Any]:
    """The ``CreateTable`` request (``infra/dynamodb/table.json`` is this with its name)."""
    keys = ("pk", "sk", "gsi1pk", "gsi1sk")
    return {
        "TableName": name,
        "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": [{"AttributeName": k, "AttributeType": "S"} for k in keys],
        "KeySchema": [
            {"AttributeName": "pk", "KeyType": "HASH"},
            {"AttributeName": "sk", "KeyType": "RANGE"},
        ],
        "GlobalSecondaryIndexes": [
            {
                "IndexName": "gsi1",
                "KeySchema": [
                    {"AttributeName": "gsi1pk", "KeyType": "HASH"},
                    {"AttributeName": "gsi1sk", "KeyType": "RANGE"},
                ],
                "Projection": {"ProjectionType": "ALL"},
            }
        ],
    }


#: Seconds an attempt may wait for DynamoDB's answer (botocore's read timeout): DynamoDB
#: answers in milliseconds, so two seconds without an answer means it is not going to.
TIMEOUT_S = 2.0


@dataclass(frozen=True)
class RetryPolicy:
    """Exponential backoff with full jitter, within a time budget: a retry is sent only if it
    can end (``attempt_timeout`` more) before ``budget`` seconds have passed since the first
    attempt, so that a hung DynamoDB is reported within the budget, not after every attempt's
    timeout. botocore itself does not retry (ours covers what it would)."""

    attempts: int = 5
    base_delay: float = 0.05
    max_delay: float = 2.0
    #: Two attempts that time out, and the backoff between them.
    budget: float = 2 * TIMEOUT_S + 0.5
    attempt_timeout: float = TIMEOUT_S
    sleep: Callable[[float], None] = field(default=time.sleep)
    clock: Callable[[], float] = field(default=time.monotonic)

    @classmethod
    def with_timeout(cls, seconds: float) -> RetryPolicy:
        """Attempts of ``seconds`` each, within a budget of two of them."""
        return cls(attempt_timeout=seconds, budget=2 * seconds + 0.5)

    def delay(self, attempt: int) -> float:
        return random.uniform(0, min(self.max_delay, self.base_delay * 2**attempt))


class ConditionFailed(Exception):
    """A condition of a write did not hold; ``item`` is the item as it was, when there was one."""

    def __init__(self, item: Item | None) -> None:
        super().__init__("conditional check failed")
        self.item = item


class TransactionCanceled(Exception):
    """A transaction failed a condition: per action, its reason code and the old item."""

    def __init__(self, reasons: list[tuple[str, Item | None]]) -> None:
        super().__init__(", ".join(code for code, _ in reasons))
        self.reasons = reasons

    def failed(self, index: int) -> bool:
        return self.reasons[index][0] == "ConditionalCheckFailed"


class DynamoTable:
    """The table's name, a lazily built low-level client and the calls the stores make."""

    def __init__(
        self,
        name: str,
        *,
        endpoint_url: str | None = None,
        region: str | None = None,
        client: Any = None,
        retry: RetryPolicy | None = None,
        clock: Clock = system_clock,
        circuit: Circuit | None = None,
    ) -> None:
        self.name = name
        self._endpoint_url = endpoint_url
        self._region = region
        self._client = client
        self._client_lock = threading.Lock()
        self._retry = retry or RetryPolicy()
        self._clock = clock
        self._circuit = circuit or Circuit(StorageUnavailable)

    def now(self) -> int:
        return int(self._clock())

    @property
    def client(self) -> Any:
        with self._client_lock:
            if self._client is None:
                import boto3
                from botocore.config import Config

                timeout = self._retry.attempt_timeout
                config = Config(
                    retries={"mode": "standard", "total_max_attempts": 1},
                    connect_timeout=min(1.0, timeout),
                    read_timeout=timeout,
                    max_pool_connections=50,
                )
                self._client = boto3.session.Session().client(
                    "dynamodb",
                    endpoint_url=self._endpoint_url,
                    region_name=self._region,
                    config=config,
                )
            return self._client

    def call(self, operation: str, **request: Any) -> dict[str, Any]:
        """Run a client operation, retrying throttling and timeouts with backoff.

        A failed condition raises ``ConditionFailed`` or ``TransactionCanceled``; when the
        attempts or the budget ran out, ``StorageUnavailable``, at once while the circuit is
        open (``groundwork.circuit``: DynamoDB gave no answer to a recent call). A write
        retried after a timeout may have been applied: conditional writes then fail on their
        own earlier write, which the stores recognise (same owner, same counter), and
        transactions carry a ``ClientRequestToken`` so DynamoDB applies them once.
        """
        from botocore.exceptions import ClientError, ConnectionError, HTTPClientError

        if operation == "transact_write_items":
            request.setdefault("ClientRequestToken", uuid.uuid4().hex)
        method = getattr(self.client, operation)
        retry = self._retry
        self._circuit.check()
        started = retry.clock()
        last: Exception | None = None
        answered = False
        for attempt in range(retry.attempts):
            if attempt:
                delay = retry.delay(attempt - 1)
                if retry.clock() - started + delay + retry.attempt_timeout > retry.budget:
                    break
                retry.sleep(delay)
            try:
                reply = dict(method(**request))
            except ClientError as error:
                self._circuit.answered()
                answered = True
                code = error.response.get("Error", {}).get("Code", "")
                if code == "ConditionalCheckFailedException":
                    raise ConditionFailed(error.response.get("Item")) from error
                if code == "TransactionCanceledException":
                    reasons = [
                        (r.get("Code", "None"), r.get("Item"))
                        for r in error.response.get("CancellationReasons", [])
                    ]
                    if not {c for c, _ in reasons} <= _RETRYABLE_REASONS | {"None"}:
                        raise TransactionCanceled(reasons) from error
                elif code not in _RETRYABLE_CODES:
                    raise
                last = error
            except (ConnectionError, HTTPClientError) as error:  # timeouts, refused connections
                last = error
            else:
                self._circuit.answered()
                return reply
        if not answered:
            self._circuit.failed()
        raise StorageUnavailable(f"DynamoDB {operation} failed: {last}") from last

    def get(self, pk: str, sk: str) -> Item | None:
        reply = self.call("get_item", TableName=self.name, Key=key(pk, sk), ConsistentRead=True)
        item: Item | None = reply.get("Item")
        return item

    def delete(self, pk: str, sk: str) -> bool:
        """Delete an item; False when there was none."""
        try:
            self.call(
                "delete_item",
                TableName=self.name,
                Key=key(pk, sk),
                ConditionExpression="attribute_exists(pk)",
            )
        except ConditionFailed:
            return False
        return True

    def query(self, pk: str, sk_prefix: str = "", *, index: str | None = None) -> list[Item]:
        """Every item of a partition (whose sort key starts with ``sk_prefix``), in key order."""
        names = {"#pk": "gsi1pk" if index else "pk"}
        values = {":pk": {"S": pk}}
        condition = "#pk = :pk"
        if sk_prefix:  # begins_with refuses an empty prefix
            names["#sk"] = "gsi1sk" if index else "sk"
            values[":prefix"] = {"S": sk_prefix}
            condition += " AND begins_with(#sk, :prefix)"
        request: dict[str, Any] = {
            "TableName": self.name,
            "KeyConditionExpression": condition,
            "ExpressionAttributeNames": names,
            "ExpressionAttributeValues": values,
        }
        if index:
            request["IndexName"] = index
        else:
            request["ConsistentRead"] = True
        items: list[Item] = []
        while True:
            reply = self.call("query", **request)
            items.extend(reply.get("Items", []))
            if "LastEvaluatedKey" not in reply:
                return items
            request["ExclusiveStartKey"] = reply["LastEvaluatedKey"]

    def create(self) -> None:
        """Create the table and turn TTL on, unless it exists (for local endpoints and tests)."""
        from botocore.exceptions import ClientError

        try:
            self.call("create_table", **table_definition(self.name))
        except ClientError as error:
            if error.response.get("Error", {}).get("Code") != "ResourceInUseException":
                raise
            return
        self.client.get_waiter("table_exists").wait(TableName=self.name)
        self.call(
            "update_time_to_live",
            TableName=self.name,
            TimeToLiveSpecification={"AttributeName": TTL_ATTRIBUTE, "Enabled": True},
        )


def key(pk: str, sk: str) -> Item:
    return {"pk": {"S": pk}, "sk": {"S": sk}}


def s(value: str) -> dict[str, str]:
    return {"S": value}


def n(value: int) -> dict[str, str]:
    return {"N": str(value)}


def text(item: Item, name: str) -> str:
    value: str = item[name]["S"]
    return value


def number(item: Item, name: str) -> int | None:
    """The integer attribute, or None when the item lacks it."""
    return int(item[name]["N"]) if name in item else None
