"""The cyclic garbage collector paused while a check runs.

A maximum-size check holds some 30,000 container objects (its windows and passages) until it
returns. Every 700 of them start a young-generation collection, and every so often a full one
walks every object of the process; none finds garbage, so those passes only cost time: about
15% of a maximum-size check (docs/grounding.md). Reference counting still frees memory as usual;
cycles made during a check are collected after it.
"""

from __future__ import annotations

import gc
import threading
from contextlib import contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterator


class _Pause:
    """Counts the checks running, so that concurrent ones re-enable the collector once, last."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._running = 0
        self._resume = False

    def enter(self) -> None:
        with self._lock:
            if self._running == 0:
                self._resume = gc.isenabled()
                gc.disable()
            self._running += 1

    def exit(self) -> None:
        with self._lock:
            self._running -= 1
            if self._running == 0 and self._resume:
                gc.enable()


_PAUSE = _Pause()


@contextmanager
def collector_paused() -> Iterator[None]:
    _PAUSE.enter()
    try:
        yield
    finally:
        _PAUSE.exit()
