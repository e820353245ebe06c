"""``groundwork ask "question"``: one answer and its citations, without a server."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import argparse


def register(commands: argparse._SubParsersAction[Any]) -> None:
    parser = commands.add_parser("ask", help="answer a question from a collection")
    parser.add_argument("question")
    parser.add_argument("--collection", default=None, help="default: the default collection")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from groundwork.answer.service import AnswerService
    from groundwork.generation.base import Turn
    from groundwork.generation.factory import get_generator
    from groundwork.ingest.bootstrap import ingest_docs
    from groundwork.retrieval.base import SearchFilter
    from groundwork.retrieval.factory import get_retriever
    from groundwork.settings import get_settings
    from groundwork.storage.factory import get_storage, get_stores

    settings = get_settings()
    collection = args.collection or settings.default_collection
    retriever = get_retriever(settings)
    if settings.bootstrap_docs and settings.docs_dir and collection == settings.default_collection:
        ingest_docs(retriever, get_storage(settings), settings.docs_dir, collection)
    if (
        retriever.count(collection) == 0
        and get_stores(settings).accounts.get_collection(collection) is None
    ):
        # As over HTTP (404 collections.not_found): neither ingested into nor registered.
        print(f"groundwork ask: no collection {collection!r}", file=sys.stderr)
        return 1
    service = AnswerService(retriever, get_generator(), k=settings.retrieval_k)
    answer = service.answer([Turn("user", args.question)], SearchFilter(collections=[collection]))
    print(answer.text)
    for citation in answer.citations:
        where = " · ".join(
            part
            for part in (citation.document_title, citation.cited_text_heading, citation.source_url)
            if part
        )
        print(f"\n[{citation.document_index + 1}] {where}")
        print("    " + citation.cited_text.replace("\n", "\n    "))
    return 0
