"""``groundwork admin``: users, their API keys, collections, grants and quotas.

Works on the configured storage (``GROUNDWORK_STORAGE``, ``GROUNDWORK_DATA_DIR``…), so the
same commands administer the embedded SQLite file and a DynamoDB table.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable

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

    collection = actions.add_parser("create-collection", help="register a collection")
    collection.add_argument("name")
    collection.add_argument("--title")
    collection.set_defaults(run=_run(_create_collection))

    grant = actions.add_parser("grant", help="let a user see a collection")
    grant.add_argument("user_id")
    grant.add_argument("collection")
    grant.set_defaults(run=_run(_grant))

    quota = actions.add_parser(
        "set-quota", help="set what a user may still ask (omit an option: unlimited)"
    )
    quota.add_argument("user_id")
    quota.add_argument("--questions", type=int, help="questions left")
    quota.add_argument("--credits", type=int, help="credits left (fast: 1, precise: 2)")
    quota.set_defaults(run=_run(_set_quota))


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
    if accounts.get_collection(name) is None:
        if get_retriever(get_settings()).count(name) == 0:
            raise NotFound(
                f"collection {name}: nothing is ingested into it and it is not registered "
                "(`groundwork ingest` or `groundwork admin create-collection`)"
            )
        accounts.create_collection(name)
    accounts.grant(args.user_id, name)
    return f"{args.user_id} may see {name}"


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
