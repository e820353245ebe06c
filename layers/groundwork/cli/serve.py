"""``groundwork serve``: the HTTP service under uvicorn."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import argparse


def register(commands: argparse._SubParsersAction[Any]) -> None:
    parser = commands.add_parser("serve", help="run the HTTP service")
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="port to bind (default 8000)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    import uvicorn

    from groundwork.api.app import create_app

    uvicorn.run(create_app(), host=args.host, port=args.port)
    return 0
