"""Time as the stores see it; tests pass a fake one to move past leases and TTLs."""

from __future__ import annotations

import time
from collections.abc import Callable

Clock = Callable[[], float]


def system_clock() -> float:
    return time.time()
