"""moto's server as the live suites run it: DynamoDB, S3 and SQS on one port of 127.0.0.1.

moto checks a condition and then writes with no lock, so two requests in its threaded server
can both pass one condition; DynamoDB itself serializes the writes to an item. Serializing the
server's DynamoDB requests gives moto that guarantee; S3 and SQS requests (an SQS long poll
among them) stay concurrent, and so do the clients.

``python -m tests.moto_server --port N`` serves it until SIGTERM (``scripts/services.sh up``
starts it so); the in-process servers of the suites wrap their app with :func:`serialized`.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from collections.abc import Callable, Iterable
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
    run_simple(
        args.host,
        args.port,
        serialized(DomainDispatcherApplication(create_backend_app)),
        threaded=True,
        request_handler=MotoRequestHandler,
    )


if __name__ == "__main__":
    main()
