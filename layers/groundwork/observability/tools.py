"""The Powertools logger, metrics and tracer every handler shares.

Powertools reads ``POWERTOOLS_SERVICE_NAME`` and ``POWERTOOLS_METRICS_NAMESPACE`` (set by the
template); the defaults below apply when a handler runs outside Lambda.
"""

from __future__ import annotations

import importlib.abc
import importlib.util
import logging
import os
import sys
from functools import lru_cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from importlib.machinery import ModuleSpec
    from types import ModuleType

    from aws_lambda_powertools import Logger, Metrics, Tracer

SERVICE = "groundwork"
NAMESPACE = "Groundwork"
#: The dimension naming the function, as Powertools names it on ``ColdStart``.
FUNCTION_DIMENSION = "function_name"


class _CurrentStdout:
    """Whatever ``sys.stdout`` is when a record is written, not when the logger was built:
    ``groundwork invoke`` moves logs to stderr around a handler that may be loaded earlier."""

    def write(self, text: str) -> int:
        return sys.stdout.write(text)

    def flush(self) -> None:
        sys.stdout.flush()


@lru_cache(maxsize=1)
def get_logger() -> Logger:
    from aws_lambda_powertools import Logger

    return Logger(
        service=os.environ.get("POWERTOOLS_SERVICE_NAME", SERVICE),
        logger_handler=logging.StreamHandler(_CurrentStdout()),
    )


@lru_cache(maxsize=1)
def get_metrics() -> Metrics:
    from aws_lambda_powertools import Metrics

    return Metrics(
        namespace=os.environ.get("POWERTOOLS_METRICS_NAMESPACE", NAMESPACE),
        service=os.environ.get("POWERTOOLS_SERVICE_NAME", SERVICE),
    )


@lru_cache(maxsize=1)
def get_tracer() -> Tracer | None:
    """The X-Ray tracer inside Lambda; None elsewhere or without ``aws-xray-sdk``.

    Powertools' Tracer imports the X-Ray SDK as soon as it is built, even when tracing is
    disabled, so it is not built at all where it could not send anything: that keeps the SDK
    an optional extra and its import off local runs.
    """
    in_lambda = "LAMBDA_TASK_ROOT" in os.environ and "AWS_SAM_LOCAL" not in os.environ
    disabled = os.environ.get("POWERTOOLS_TRACE_DISABLED", "false").lower() in {"1", "true"}
    if not in_lambda or disabled or importlib.util.find_spec("aws_xray_sdk") is None:
        return None
    from aws_lambda_powertools import Tracer

    tracer = Tracer(service=os.environ.get("POWERTOOLS_SERVICE_NAME", SERVICE), auto_patch=False)
    patch_on_import(tracer, PATCHED)
    return tracer


#: The libraries X-Ray's ``patch_all`` (Powertools' default) patches that the layers hold, by
#: the module whose import makes each patchable.
PATCHED = {
    "botocore.client": "botocore",
    "requests": "requests",
    "httpx": "httpx",
    "sqlite3": "sqlite3",
}


def patch_on_import(tracer: Tracer, libraries: dict[str, str]) -> None:
    """Patch each library for X-Ray as it is imported, not all of them at start.

    ``patch_all`` imports every library it patches, botocore's client, requests and httpx:
    about 0.2 s of CPU of a cold start, for calls the first event may never make. A library
    already imported is patched at once.
    """
    pending = {}
    for module, library in libraries.items():
        if module in sys.modules:
            tracer.patch([library])
        else:
            pending[module] = library
    sys.meta_path.insert(0, _PatchOnImport(tracer, pending))


class _PatchOnImport(importlib.abc.MetaPathFinder):
    def __init__(self, tracer: Tracer, pending: dict[str, str]) -> None:
        self._tracer = tracer
        self._pending = pending

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        library = self._pending.pop(fullname, None)
        if library is None:
            return None
        spec = importlib.util.find_spec(fullname)  # by the other finders: this one is done
        if spec is not None and spec.loader is not None:
            spec.loader = _ThenPatch(spec.loader, lambda: self._tracer.patch([library]))
        return spec


class _ThenPatch(importlib.abc.Loader):
    """The module's own loader, then X-Ray's patch once the module is executed."""

    def __init__(self, loader: importlib.abc.Loader, patch: Callable[[], None]) -> None:
        self._loader = loader
        self._patch = patch

    def create_module(self, spec: ModuleSpec) -> ModuleType | None:
        return self._loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        self._loader.exec_module(module)
        # As the import system does next, so that the patch finds ``botocore.client`` on
        # ``botocore``.
        parent, _, child = module.__name__.rpartition(".")
        if parent:
            setattr(sys.modules[parent], child, module)
        self._patch()

    def __getattr__(self, name: str) -> Any:  # get_data, is_package, resource readers
        return getattr(self._loader, name)
