"""``groundwork setup-index``: create the OpenSearch index and search pipeline ahead of use.

The first write of a process (``groundwork ingest``, the ingest function) does the same; this
lets a deployment create them with its own rights, before any function runs. Idempotent.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import argparse


def register(commands: argparse._SubParsersAction[Any]) -> None:
    parser = commands.add_parser(
        "setup-index", help="create the OpenSearch index and search pipeline (idempotent)"
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from groundwork.retrieval.factory import get_retriever
    from groundwork.retrieval.opensearch import OpenSearchIndex
    from groundwork.settings import get_settings

    settings = get_settings()
    retriever = get_retriever(settings)
    if not isinstance(retriever, OpenSearchIndex):
        print(f"nothing to set up: the {settings.retrieval} index creates itself on first use")
        return 0
    retriever.ensure()
    print(f"OpenSearch index {settings.opensearch_index} and its search pipeline are ready")
    return 0
