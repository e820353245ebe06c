"""``groundwork check FILE.json``: a grounding check without a server, same JSON as the API."""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import argparse


def register(commands: argparse._SubParsersAction[Any]) -> None:
    parser = commands.add_parser(
        "check", help="check how well an answer is grounded in facts (request JSON in, JSON out)"
    )
    parser.add_argument("file", help="a check-grounding request as JSON; '-' reads stdin")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from pydantic import ValidationError

    from groundwork.api.schemas.grounding import CheckGroundingRequest, CheckGroundingResponse
    from groundwork.errors import ApiError
    from groundwork.grounding.factory import get_verifier
    from groundwork.grounding.service import check

    try:
        if args.file == "-":
            raw = sys.stdin.read()
        else:
            with open(args.file, encoding="utf-8") as handle:
                raw = handle.read()
        request = CheckGroundingRequest.model_validate_json(raw)
        response = check(request.to_domain(), get_verifier())
    except OSError as exc:
        print(f"groundwork check: cannot read {args.file}: {exc.strerror}", file=sys.stderr)
        return 2
    except ValidationError as exc:
        print(f"groundwork check: invalid request: {exc.errors()[0]['msg']}", file=sys.stderr)
        return 2
    except ApiError as exc:
        print(f"groundwork check: {exc.code}: {exc.message}", file=sys.stderr)
        return 2
    body = CheckGroundingResponse.from_domain(response).model_dump(by_alias=True, exclude_none=True)
    print(json.dumps(body, ensure_ascii=False, indent=2))
    return 0
