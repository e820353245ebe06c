"""``groundwork admin add-starter | remove-starter | list-starters``: a collection's
suggested questions (docs/starters.md). An admin's come before the proposals of ingest."""

from __future__ import annotations

import argparse
import time
from typing import TYPE_CHECKING, Any

from groundwork.text.language_names import language_code

if TYPE_CHECKING:
    from collections.abc import Callable

    from groundwork.storage.stores import Stores

    Action = Callable[[Stores, argparse.Namespace], str]


def register(
    actions: argparse._SubParsersAction[Any],
    run: Callable[[Action], Callable[[argparse.Namespace], int]],
) -> None:
    add = actions.add_parser("add-starter", help="suggest a question for a collection")
    add.add_argument("collection")
    add.add_argument("text", type=_text, help="the question, as shown and asked")
    add.add_argument(
        "--language", type=_language, help="ISO 639-1 code (default: detected from the text)"
    )
    add.add_argument("--source", help="the id of the source it is about")
    add.add_argument(
        "--tags",
        nargs="+",
        default=[],
        metavar="TAG",
        help="who sees it among users granted part of the collection: those granted one of "
        "these tags (without --tags or --source: only users granted the whole collection)",
    )
    add.set_defaults(run=run(_add))

    remove = actions.add_parser("remove-starter", help="remove a starter (see list-starters)")
    remove.add_argument("collection")
    remove.add_argument("starter_id")
    remove.set_defaults(run=run(_remove))

    listing = actions.add_parser("list-starters", help="a collection's starters, in order")
    listing.add_argument("collection")
    listing.set_defaults(run=run(_list))


def _text(value: str) -> str:
    text = " ".join(value.split())
    if not text:
        raise argparse.ArgumentTypeError("the text is empty")
    return text


def _language(value: str) -> str:
    code = language_code(value)
    if code is None:
        raise argparse.ArgumentTypeError("an ISO 639-1 code (two letters) is expected")
    return code


def _add(stores: Stores, args: argparse.Namespace) -> str:
    from groundwork.chat.language import detect_language
    from groundwork.storage.errors import NotFound
    from groundwork.storage.factory import get_storage
    from groundwork.storage.starters import StarterRecord, new_starter_id

    storage = get_storage()
    sources = storage.list_sources(args.collection)
    if stores.accounts.get_collection(args.collection) is None and not sources:
        raise NotFound(f"collection {args.collection}")
    if args.source is not None and args.source not in {s.id for s in sources}:
        raise NotFound(f"source {args.source} in {args.collection}")
    starter = stores.starters.add(
        StarterRecord(
            id=new_starter_id(),
            collection=args.collection,
            text=args.text,
            language=args.language or detect_language(args.text),
            source_id=args.source,
            tags=sorted(set(args.tags)),
            created=int(time.time()),
        )
    )
    # The id alone, so that scripts can capture it (remove-starter takes it).
    return starter.id


def _remove(stores: Stores, args: argparse.Namespace) -> str:
    from groundwork.storage.errors import NotFound

    if not stores.starters.remove(args.collection, args.starter_id):
        raise NotFound(f"starter {args.starter_id} in {args.collection}")
    return f"starter {args.starter_id} removed"


def _list(stores: Stores, args: argparse.Namespace) -> str:
    lines = [
        "\t".join([s.id, s.origin, s.language or "-", s.source_id or "-", s.text])
        for s in stores.starters.list_starters(args.collection)
    ]
    return "\n".join(lines) or f"no starters in {args.collection}"
