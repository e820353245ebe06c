"""``groundwork serve | ingest | ask | eval | …``: one entry point, one sub-command per module."""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING

from groundwork.cli import admin, ask, check, eval, ingest, invoke, reindex, serve, setup_index

if TYPE_CHECKING:
    from collections.abc import Sequence

COMMANDS = (serve, ingest, ask, eval, check, invoke, admin, setup_index, reindex)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="groundwork",
        description="Answers from your documents with verifiable citations.",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module in COMMANDS:
        module.register(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    from groundwork.retrieval.base import IndexEmbedderMismatch, IndexReindexing

    args = build_parser().parse_args(argv)
    try:
        code: int = args.run(args)
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader went away (``groundwork admin list-starters c | head``): no traceback.
        # Python flushes stdout again on exit, so it is pointed at /dev/null first.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except (IndexEmbedderMismatch, IndexReindexing) as refused:
        print(f"groundwork {args.command}: {refused.message}", file=sys.stderr)
        return 2
    return code


if __name__ == "__main__":
    sys.exit(main())
