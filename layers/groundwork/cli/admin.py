"""``groundwork admin``: users, their API keys (issued and revoked), collections, grants (whole
collections, or the part of one with some tags or sources) and quotas.

Works on the configured storage (``GROUNDWORK_STORAGE``, ``GROUNDWORK_DATA_DIR``…), so the
same commands administer the embedded SQLite file and a DynamoDB table.
"""

from __future__ import annotations

import argparse
import re
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable

    from groundwork.storage.records import GrantRecord
    from groundwork.storage.stores import Stores


def register(commands: argparse._SubParsersAction[Any]) -> None:
    parser = commands.add_parser(
        "admin", help="manage users, API keys, collections, grants, quotas and starters"
    )
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    from groundwork.cli import admin_starters

    admin_starters.register(actions, _run)

    user = actions.add_parser("create-user", help="create a user")
    user.add_argument("user_id")
    user.add_argument("--name", help="display name (default: the id)")
    user.set_defaults(run=_run(_create_user))

    key = actions.add_parser("create-key", help="issue an API key; it is printed only once")
    key.add_argument("user_id")
    key.add_argument("--label", help="what the key is for")
    key.set_defaults(run=_run(_create_key))

    revoke_key = actions.add_parser(
        "revoke-key", help="revoke an API key: it stops opening anything at once"
    )
    revoke_key.add_argument("key", help="the key, or the SHA-256 hex digest stored for it")
    revoke_key.set_defaults(run=_run(_revoke_key))

    collection = actions.add_parser("create-collection", help="register a collection")
    collection.add_argument("name")
    collection.add_argument("--title")
    collection.set_defaults(run=_run(_create_collection))

    grant = actions.add_parser(
        "grant",
        help="let a user see a collection, or with --tags/--sources only part of it "
        "(replaces the user's earlier grant of it)",
    )
    grant.add_argument("user_id")
    grant.add_argument("collection")
    grant.add_argument(
        "--tags",
        nargs="+",
        type=_word,
        default=[],
        metavar="TAG",
        help="only the cards with one of these tags",
    )
    grant.add_argument(
        "--sources",
        nargs="+",
        type=_word,
        default=[],
        metavar="ID",
        help="only the cards of these sources (ids as `GET /v1/collections` lists them)",
    )
    grant.set_defaults(run=_run(_grant))

    revoke = actions.add_parser("revoke", help="take a collection away from a user")
    revoke.add_argument("user_id")
    revoke.add_argument("collection")
    revoke.set_defaults(run=_run(_revoke))

    grants = actions.add_parser("grants", help="list what a user may see, one collection a line")
    grants.add_argument("user_id")
    grants.set_defaults(run=_run(_grants))

    quota = actions.add_parser(
        "set-quota", help="set what a user may still ask (omit an option: unlimited)"
    )
    quota.add_argument("user_id")
    quota.add_argument("--questions", type=int, help="questions left")
    quota.add_argument("--credits", type=int, help="credits left (fast: 1, precise: 2)")
    quota.set_defaults(run=_run(_set_quota))


def _word(value: str) -> str:
    if not value.strip():
        raise argparse.ArgumentTypeError("an empty name")
    return value.strip()


def _run(
    action: Callable[[Stores, argparse.Namespace], str],
) -> Callable[[argparse.Namespace], int]:
    """The action with the configured stores; storage errors become one line and exit 1."""

    def run(args: argparse.Namespace) -> int:
        from groundwork.settings import get_settings
        from groundwork.storage.errors import AlreadyExists, NotFound, StorageError
        from groundwork.storage.factory import get_stores

        try:
            # The settings object, not the default argument, keys the cached stores: the
            # settings of this run (tests change them between runs).
            message = action(get_stores(get_settings()), args)
        except AlreadyExists as exc:
            print(f"groundwork admin: already exists: {exc}", file=sys.stderr)
            return 1
        except NotFound as exc:
            print(f"groundwork admin: not found: {exc}", file=sys.stderr)
            return 1
        except StorageError as exc:
            print(f"groundwork admin: {exc}", file=sys.stderr)
            return 1
        print(message)
        return 0

    return run


def _create_user(stores: Stores, args: argparse.Namespace) -> str:
    user = stores.accounts.create_user(args.user_id, args.name or args.user_id)
    return f"user {user.id} created"


def _create_key(stores: Stores, args: argparse.Namespace) -> str:
    # The key itself is the only output, so that scripts can capture it.
    return stores.accounts.issue_api_key(args.user_id, args.label)


def _revoke_key(stores: Stores, args: argparse.Namespace) -> str:
    from groundwork.storage.errors import NotFound
    from groundwork.storage.records import hash_api_key

    key: str = args.key
    # Keys are issued as gw_…; a digest is what an admin finds stored, without the key.
    digest = key.lower() if re.fullmatch(r"[0-9a-fA-F]{64}", key) else hash_api_key(key)
    if not stores.accounts.revoke_api_key(digest):
        raise NotFound("API key")
    return "key revoked"


def _create_collection(stores: Stores, args: argparse.Namespace) -> str:
    collection = stores.accounts.create_collection(args.name, args.title)
    return f"collection {collection.name} created"


def _grant(stores: Stores, args: argparse.Namespace) -> str:
    """A collection that holds ingested cards is registered on its first grant."""
    from groundwork.retrieval.factory import get_retriever
    from groundwork.settings import get_settings
    from groundwork.storage.errors import NotFound

    accounts, name = stores.accounts, args.collection
    if accounts.get_user(args.user_id) is None:
        raise NotFound(f"user {args.user_id} (create it with `groundwork admin create-user`)")
    registered = accounts.get_collection(name) is not None
    if not registered and get_retriever(get_settings()).count(name) == 0:
        raise NotFound(
            f"collection {name}: nothing is ingested into it and it is not registered "
            "(`groundwork ingest` or `groundwork admin create-collection`)"
        )
    if args.sources:
        from groundwork.storage.factory import get_storage

        storage = get_storage(get_settings())
        for source_id in args.sources:
            source = storage.get_source(source_id)
            if source is None or source.collection != name:
                raise NotFound(f"source {source_id} in {name}")
    if not registered:
        accounts.create_collection(name)
    grant = accounts.grant(args.user_id, name, tags=args.tags, source_ids=args.sources)
    return f"{args.user_id} may see {_granted(grant)}"


def _revoke(stores: Stores, args: argparse.Namespace) -> str:
    from groundwork.storage.errors import NotFound

    if not stores.accounts.revoke(args.user_id, args.collection):
        raise NotFound(f"grant of {args.collection} to {args.user_id}")
    return f"{args.user_id} may no longer see {args.collection}"


def _grants(stores: Stores, args: argparse.Namespace) -> str:
    from groundwork.storage.errors import NotFound

    if stores.accounts.get_user(args.user_id) is None:
        raise NotFound(f"user {args.user_id}")
    lines = [_granted(grant) for grant in stores.accounts.grants(args.user_id)]
    return "\n".join(lines) or f"{args.user_id} may see no collection"


def _granted(grant: GrantRecord) -> str:
    """``handbook`` for a whole collection, ``handbook (tags public; sources 4c0d…)`` for part."""
    parts = [
        f"{what} {', '.join(values)}"
        for what, values in (("tags", grant.tags), ("sources", grant.source_ids))
        if values
    ]
    return f"{grant.collection} ({'; '.join(parts)})" if parts else grant.collection


def _set_quota(stores: Stores, args: argparse.Namespace) -> str:
    if stores.accounts.get_user(args.user_id) is None:
        from groundwork.storage.errors import NotFound

        raise NotFound(f"user {args.user_id}")
    quota = stores.quotas.set_quota(
        args.user_id, questions_left=args.questions, credits_left=args.credits
    )
    left = [
        f"{'unlimited' if value is None else value} {what}"
        for what, value in (("questions", quota.questions_left), ("credits", quota.credits_left))
    ]
    return f"{args.user_id}: {', '.join(left)} left"
