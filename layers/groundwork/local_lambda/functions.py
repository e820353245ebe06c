"""The functions of a ``sam build``, as ``scripts/lambda_describe.py`` wrote them down."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pathlib import Path


@dataclass(frozen=True)
class Route:
    """One ``Api`` event: a resource path such as ``/v1/{proxy+}``, a method or ``ANY``."""

    function: str
    path: str
    method: str
    stream: bool
    stage: str

    @property
    def pattern(self) -> re.Pattern[str]:
        parts = []
        for segment in self.path.strip("/").split("/") if self.path != "/" else []:
            if segment.endswith("+}"):
                parts.append(f"(?P<{segment[1:-2]}>.+)")
            elif segment.startswith("{"):
                parts.append(f"(?P<{segment[1:-1]}>[^/]+)")
            else:
                parts.append(re.escape(segment))
        return re.compile("^/" + "/".join(parts) + "$")

    @property
    def specificity(self) -> tuple[bool, int]:
        """API Gateway prefers literal segments to parameters, and a greedy path last."""
        segments = self.path.strip("/").split("/")
        return ("+}" not in self.path, sum(not s.startswith("{") for s in segments))


@dataclass(frozen=True)
class Function:
    name: str  # the template's logical id
    code: str  # LAMBDA_TASK_ROOT: the function's folder as built
    handler: str
    runtime: str  # "python3.12"
    timeout: int
    memory: int
    layers: tuple[str, ...]  # built layer folders, in the template's order
    external_layers: tuple[str, ...]  # ARNs of layers built elsewhere
    environment: dict[str, str]
    unresolved_environment: tuple[str, ...]  # set by an intrinsic function once deployed
    routes: tuple[Route, ...]
    events: tuple[str, ...]  # event source types: Api, S3, SQS


def load(build_dir: Path) -> dict[str, Function]:
    described: dict[str, Any] = json.loads((build_dir / "functions.json").read_text())
    functions = {}
    for name, spec in described["functions"].items():
        routes = tuple(
            Route(name, e["path"], e["method"], e["stream"], e["stage"] or "prod")
            for e in spec["events"]
            if e["type"] == "Api"
        )
        functions[name] = Function(
            name=name,
            code=spec["code"],
            handler=spec["handler"],
            runtime=spec["runtime"],
            timeout=spec["timeout"],
            memory=spec["memory"],
            layers=tuple(spec["layers"]),
            external_layers=tuple(spec["external_layers"]),
            environment=dict(spec["environment"]),
            unresolved_environment=tuple(spec["unresolved_environment"]),
            routes=routes,
            events=tuple(e["type"] for e in spec["events"]),
        )
    return functions
