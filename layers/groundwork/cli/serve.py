"""``groundwork serve``: the HTTP service under uvicorn, or through the deployed shape."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import argparse

    from groundwork.settings import Settings


def register(commands: argparse._SubParsersAction[Any]) -> None:
    parser = commands.add_parser("serve", help="run the HTTP service")
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="port to bind (default 8000)")
    parser.add_argument(
        "--lambda",
        dest="lambda_",
        action="store_true",
        help="serve through the deployed shape: every function of a `sam build` under the "
        "Lambda Runtime Interface Emulator, the chat function behind the Web Adapter, an "
        "API-Gateway-like router in front (build first: scripts/lambda_local.sh)",
    )
    parser.add_argument(
        "--build-dir",
        help="with --lambda: the `sam build` output (default $GROUNDWORK_SAM_BUILD_DIR "
        "or .lambda-local/sam-build)",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    import uvicorn

    if args.lambda_:
        return _serve_lambda(args)
    from groundwork.api.app import create_app
    from groundwork.api.startup import warn_unlocated
    from groundwork.observability.access_log import log_config

    settings = _settings_for(args.host)
    _say_how_to_sign_in(settings, args.host, args.port)
    warn_unlocated(settings)
    app = create_app(settings, docs_aside=True)
    uvicorn.run(app, host=args.host, port=args.port, log_config=log_config())
    return 0


def _settings_for(host: str) -> Settings:
    """The settings, with the local user on when the service is only reachable from this
    machine, keeps its state in SQLite and asks for no keys (``auth/local.py``), unless
    ``GROUNDWORK_LOCAL_USER`` says otherwise."""
    import os

    from groundwork.auth.local import is_loopback
    from groundwork.settings import get_settings

    settings = get_settings()
    embedded = settings.storage == "sqlite" and not settings.require_api_key
    if "GROUNDWORK_LOCAL_USER" not in os.environ and is_loopback(host) and embedded:
        os.environ["GROUNDWORK_LOCAL_USER"] = "true"
        get_settings.cache_clear()
        settings = get_settings()
    return settings


def _say_how_to_sign_in(settings: Settings, host: str, port: int) -> None:
    import sys

    page = f"http://{host}:{port}/"
    if settings.local_user and not settings.require_api_key:
        print(
            f"groundwork: the page at {page} needs no API key from this computer (the user "
            "`local`); other clients send a key (groundwork admin create-key)",
            file=sys.stderr,
        )
        return
    print(
        f"groundwork: the page at {page} asks for an API key for Ask and Conversations; make "
        "one with\n  groundwork admin create-user me && groundwork admin grant me "
        f"{settings.default_collection} && groundwork admin create-key me",
        file=sys.stderr,
    )


def _serve_lambda(args: argparse.Namespace) -> int:
    import os
    import sys
    from pathlib import Path

    import uvicorn

    from groundwork.local_lambda.router import Gateway
    from groundwork.local_lambda.stack import (
        NotBuilt,
        default_build_dir,
        default_tools_dir,
        running,
    )
    from groundwork.observability.access_log import log_config

    build_dir = Path(args.build_dir).resolve() if args.build_dir else default_build_dir()
    try:
        with running(build_dir, default_tools_dir(), dict(os.environ), echo=True) as functions:
            gateway = Gateway(functions)
            stage = gateway.routes[0].stage if gateway.routes else "prod"
            print(
                f"groundwork serve --lambda: {len(functions)} functions, "
                f"API at http://{args.host}:{args.port}/{stage}/",
                file=sys.stderr,
            )
            uvicorn.run(gateway.app(), host=args.host, port=args.port, log_config=log_config())
    except NotBuilt as exc:
        print(f"groundwork serve --lambda: {exc}", file=sys.stderr)
        return 2
    return 0
