"""``groundwork invoke FUNCTION EVENT.json``: run a Lambda handler on an event, without Docker.

FUNCTION is a short name or the template's logical id. The handler is loaded from
``functions/`` the way Lambda loads it (its folder first on ``sys.path``), called with a
Lambda-like context, and its return value is printed as JSON on stdout; logs and metrics go
to stderr, as with ``sam local invoke``.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import sys
import time
import traceback
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable


@dataclass(frozen=True)
class Function:
    logical_id: str  # in template.yaml
    code_dir: str
    module: str
    attribute: str


FUNCTIONS = {
    "api": Function("ApiFunction", "functions/api", "handler", "handler"),
    "grounding": Function("GroundingFunction", "functions/grounding", "handler", "handler"),
    "scope": Function("ScopeFunction", "functions/scope", "handler", "handler"),
    "batch-enqueue": Function("BatchEnqueueFunction", "functions/batch", "enqueue", "handler"),
    "batch-worker": Function("BatchWorkerFunction", "functions/batch", "worker", "handler"),
    "batch-assemble": Function("BatchAssembleFunction", "functions/batch", "assemble", "handler"),
    "ingest": Function("IngestFunction", "functions/ingest", "handler", "handler"),
}

#: Functions whose entry point is not a Python handler.
_NOT_PYTHON = {
    "chat": "ChatFunction runs the app under Lambda Web Adapter (run.sh): run "
    "`groundwork serve` to stream, or `groundwork invoke api` for the same app, buffered",
}


@dataclass
class LambdaContext:
    """The attributes and method of Lambda's Python context object."""

    function_name: str
    memory_limit_in_mb: int = 1024
    timeout_s: float = 30.0
    function_version: str = "$LATEST"
    aws_request_id: str = field(default_factory=lambda: str(uuid.uuid4()))
    region: str = "us-east-1"
    account: str = "123456789012"
    identity: Any = None
    client_context: Any = None
    _deadline: float = field(init=False)

    def __post_init__(self) -> None:
        self._deadline = time.monotonic() + self.timeout_s

    @property
    def invoked_function_arn(self) -> str:
        return f"arn:aws:lambda:{self.region}:{self.account}:function:{self.function_name}"

    @property
    def log_group_name(self) -> str:
        return f"/aws/lambda/{self.function_name}"

    @property
    def log_stream_name(self) -> str:
        return f"{time.strftime('%Y/%m/%d')}/[{self.function_version}]local"

    def get_remaining_time_in_millis(self) -> int:
        return max(0, int((self._deadline - time.monotonic()) * 1000))


def find_function(name: str) -> Function:
    """The function by short name or logical id; ``KeyError`` with the choices otherwise."""
    key = name.lower()
    if key in _NOT_PYTHON or key == "chatfunction":
        raise KeyError(_NOT_PYTHON["chat"])
    for short, function in FUNCTIONS.items():
        if key in {short, function.logical_id.lower()}:
            return function
    raise KeyError(f"no function {name!r}; choose one of {', '.join(FUNCTIONS)}")


def load_handler(function: Function, root: Path) -> Callable[[Any, Any], Any]:
    code_dir = root / function.code_dir
    # Lambda puts the function's folder first on the path: modules beside the handler import.
    sys.path.insert(0, str(code_dir))
    name = f"groundwork_function_{function.logical_id}_{function.module}"
    spec = importlib.util.spec_from_file_location(name, code_dir / f"{function.module}.py")
    if spec is None or spec.loader is None:
        raise FileNotFoundError(code_dir / f"{function.module}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    handler: Callable[[Any, Any], Any] = getattr(module, function.attribute)
    return handler


def invoke(
    function: Function, event: Any, *, root: Path, timeout_s: float = 30.0
) -> tuple[Any, LambdaContext]:
    handler = load_handler(function, root)
    context = LambdaContext(function_name=f"groundwork-{function.logical_id}", timeout_s=timeout_s)
    return handler(event, context), context


def register(commands: argparse._SubParsersAction[Any]) -> None:
    parser = commands.add_parser(
        "invoke", help="run a Lambda function's handler on an event (no Docker needed)"
    )
    parser.add_argument("function", help=f"one of {', '.join(FUNCTIONS)} or a logical id")
    parser.add_argument("event", help="an event JSON file, such as events/api_health.json")
    parser.add_argument(
        "--root", default=".", help="the checkout holding functions/ (default: the current one)"
    )
    parser.add_argument("--timeout", type=float, default=30.0, help="the context's time limit")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    try:
        function = find_function(args.function)
        event = json.loads(Path(args.event).read_text(encoding="utf-8"))
    except KeyError as exc:
        print(f"groundwork invoke: {exc.args[0]}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"groundwork invoke: cannot read {args.event}: {exc.strerror}", file=sys.stderr)
        return 2
    except json.JSONDecodeError as exc:
        print(f"groundwork invoke: {args.event} is not JSON: {exc}", file=sys.stderr)
        return 2
    stdout = sys.stdout
    try:
        # Handlers log and emit metrics on stdout (CloudWatch's stream); keep stdout for the
        # result. Loggers built during the import bind to stderr too.
        with contextlib.redirect_stdout(sys.stderr):
            result, _ = invoke(function, event, root=Path(args.root), timeout_s=args.timeout)
    except Exception:
        traceback.print_exc()
        return 1
    print(json.dumps(result, ensure_ascii=False, indent=2, default=str), file=stdout)
    return 0
