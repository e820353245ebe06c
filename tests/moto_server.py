"""moto's server as the live suites run it: DynamoDB, S3 and SQS on one port of 127.0.0.1.

moto checks a condition and then writes with no lock, so two requests in its threaded server
can both pass one condition; DynamoDB itself serializes the writes to an item. Serializing the
server's DynamoDB requests gives moto that guarantee; S3 and SQS requests (an SQS long poll
among them) stay concurrent, and so do the clients.

moto's ``TransactWriteItems`` deep-copies each table it names before it starts, to roll back:
a cost that grows with the table (seconds a transaction once it holds 100,000 items, so a batch
of that many lines could not run on it). :func:`lean_transactions` keeps a copy of each item
the transaction names instead, and puts those back: the same outcome, since the server's
DynamoDB requests are one at a time and a transaction writes only the items it names. Its SQS
queues, likewise, list every message to receive ten and scan every message twice to delete one:
:func:`lean_queues` reads the queue only as far as it must. The server of
``scripts/services.sh`` runs with both, the suites' in-process servers without them, and the
storage contract suite and the deployed shape's run on the former (``bench/batch_throughput.py``
puts 100,000 lines through it).

``python -m tests.moto_server --port N`` serves it until SIGTERM (``scripts/services.sh up``
starts it so); the suites' in-process servers are :func:`in_process`, serialized too (the batch
suite's was not, and two of its workers' transactions at once lost a line's count).
"""

from __future__ import annotations

import argparse
import logging
import signal
import sys
import threading
import time
import types
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any

WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


def serialized(app: WSGIApp) -> WSGIApp:
    """``app`` with its DynamoDB requests (``X-Amz-Target: DynamoDB_…``) one at a time."""
    lock = threading.Lock()

    def serve(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        if not environ.get("HTTP_X_AMZ_TARGET", "").startswith("DynamoDB_"):
            return app(environ, start_response)
        with lock:
            return list(app(environ, start_response))

    return serve


@contextmanager
def in_process() -> Iterator[str]:
    """moto's threaded server in this process, its DynamoDB requests serialized: its URL."""
    from moto.server import ThreadedMotoServer

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    server._server.app = serialized(server._server.app)  # type: ignore[union-attr]
    host, port = server.get_host_and_port()
    try:
        yield f"http://{host}:{port}"
    finally:
        server.stop()


def lean_transactions() -> None:
    """moto's transactions, rolled back item by item instead of table by table."""
    import copy

    import moto.dynamodb.models as models
    from moto.dynamodb.models.dynamo_type import DynamoType
    from moto.dynamodb.models.table import Table

    class TablesAsThey(types.SimpleNamespace):
        """moto's ``copy`` for its transactions: a table is not copied (its items are, by
        the wrapper below); anything else is, as before."""

        @staticmethod
        def deepcopy(value: Any) -> Any:
            return value if isinstance(value, Table) else copy.deepcopy(value)

    full = models.DynamoDBBackend.transact_write_items

    def transact(self: Any, transact_items: list[dict[str, Any]]) -> None:
        saved = []
        for entry in transact_items:
            _, operation = next(iter(entry.items()))
            table = self.tables.get(operation.get("TableName", ""))
            key = operation.get("Key") or operation.get("Item")
            if table is None or not key or table.hash_key_attr not in key:
                continue  # moto refuses it before writing anything
            hash_value = DynamoType(key[table.hash_key_attr])
            range_value = (
                DynamoType(key[table.range_key_attr])
                if table.range_key_attr and table.range_key_attr in key
                else None
            )
            if table.has_range_key and range_value is None:
                continue
            before = table.get_item(hash_value, range_value)
            saved.append((table, hash_value, range_value, copy.deepcopy(before)))
        try:
            full(self, transact_items)
        except BaseException:
            for table, hash_value, range_value, before in reversed(saved):
                if before is None:
                    if table.get_item(hash_value, range_value) is not None:
                        table.delete_item(hash_value, range_value)
                elif range_value is not None:
                    table.items[hash_value][range_value] = before
                else:
                    table.items[hash_value] = before
            raise

    models.copy = TablesAsThey()  # type: ignore[assignment]
    models.DynamoDBBackend.transact_write_items = transact  # type: ignore[method-assign]


def lean_queues() -> None:
    """moto's queues, received from and deleted from without a pass over every message."""
    from moto.core.utils import unix_time_millis
    from moto.sqs.exceptions import ReceiptHandleIsInvalid
    from moto.sqs.models import Queue

    class Visible:
        """The visible messages, in order, found as they are read: receiving ten reads the
        messages in flight (first in the queue) and ten more, not all of them."""

        def __init__(self, messages: list[Any]) -> None:
            self._messages = messages

        def __iter__(self) -> Iterator[Any]:
            return (m for m in self._messages if m.visible and not m.delayed)

        def __bool__(self) -> bool:
            return any(True for _ in self)

        def __len__(self) -> int:
            return sum(1 for _ in self)

    def delete_message(self: Any, receipt_handle: str) -> None:
        if receipt_handle in self.deleted_messages:
            return  # deleted already: moto, as SQS, accepts it again
        # A message is deleted once received: it is among the few in flight.
        found = next(
            (m for m in self.pending_messages if m.had_receipt_handle(receipt_handle)), None
        ) or next((m for m in self._messages if m.had_receipt_handle(receipt_handle)), None)
        if found is None:
            raise ReceiptHandleIsInvalid()
        self.pending_messages.discard(found)
        self.deleted_messages.update(found.all_receipt_handles)
        self._messages.remove(found)

    def counts(self: Any) -> dict[str, int]:
        """moto's three counts, made at most once a second and in one pass (moto passes over
        every message for each, calling the clock for each, and every message sent reads the
        queue's attributes, counts included). SQS's own counts are approximate, late by up to
        a minute."""
        cached = self.__dict__.get("_lean_counts")
        if cached is None or time.monotonic() - cached[0] > 1:
            now = unix_time_millis()
            visible = delayed = hidden = 0
            for message in self._messages:
                if now < message.delayed_until:
                    delayed += 1
                if now > message.visible_at:
                    visible += not now < message.delayed_until
                else:
                    hidden += 1
            cached = (time.monotonic(), {"visible": visible, "delayed": delayed, "hidden": hidden})
            self.__dict__["_lean_counts"] = cached
        found: dict[str, int] = cached[1]
        return found

    Queue.approximate_number_of_messages = property(lambda self: counts(self)["visible"])  # type: ignore[assignment]
    Queue.approximate_number_of_messages_delayed = property(  # type: ignore[assignment]
        lambda self: counts(self)["delayed"]
    )
    Queue.approximate_number_of_messages_not_visible = property(  # type: ignore[assignment]
        lambda self: counts(self)["hidden"]
    )
    Queue.messages = property(lambda self: Visible(self._messages))  # type: ignore[assignment]
    Queue.delete_message = delete_message  # type: ignore[method-assign]


def main(argv: list[str] | None = None) -> None:
    from moto.moto_server.werkzeug_app import (
        DomainDispatcherApplication,
        MotoRequestHandler,
        create_backend_app,
    )
    from werkzeug.serving import run_simple

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args(argv)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # a line per request otherwise
    lean_transactions()
    lean_queues()
    run_simple(
        args.host,
        args.port,
        serialized(DomainDispatcherApplication(create_backend_app)),
        threaded=True,
        request_handler=MotoRequestHandler,
    )


if __name__ == "__main__":
    main()
