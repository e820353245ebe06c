"""A circuit breaker per network backend (OpenSearch, DynamoDB), so that a backend that stopped
answering costs each request a moment, not a worker for the whole of a timeout.

Closed, every call goes through. A call that got no answer at all within its budget (refused
connections, timeouts: the backend is dead or hung) opens the circuit for a cool-down:
meanwhile calls fail at once with the backend's ``BackendUnavailable`` and a ``Retry-After``
of what is left of it. Then one call goes through as a probe while the others still fail
fast: its answer closes the circuit, its failure opens it again for twice as long (2 s, 4 s,
8 s, then 10 s at most). So a hung backend holds at most one worker of each process at a
time, and the service recovers by itself, within a cool-down (10 s at most) of the backend's
return, without a restart.

An answer, even a refusal (throttling, a 4xx, a failed condition), closes the circuit: a
backend that answers "too busy" is up, and its own retries and backoff deal with it.
"""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable

    from groundwork.errors import BackendUnavailable

#: How long an open circuit first refuses calls before letting a probe through.
COOLDOWN_S = 2.0
#: The longest cool-down, after probes that failed one after another.
MAX_COOLDOWN_S = 10.0


class Circuit:
    def __init__(
        self,
        unavailable: Callable[..., BackendUnavailable],
        *,
        cooldown_s: float = COOLDOWN_S,
        max_cooldown_s: float = MAX_COOLDOWN_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._unavailable = unavailable
        self._first_cooldown_s = cooldown_s
        self._max_cooldown_s = max_cooldown_s
        self._cooldown_s = cooldown_s
        self._clock = clock
        self._lock = threading.Lock()
        self._open_until: float | None = None  # None: closed
        self._probe_until = 0.0  # a probe is out until then

    def check(self) -> None:
        """Return if a call may go now; raise the backend's ``BackendUnavailable`` if not."""
        with self._lock:
            if self._open_until is None:
                return
            now = self._clock()
            if now < self._open_until:
                wait = self._open_until - now
            elif now >= self._probe_until:
                # One probe at a time; a probe that never reports (its thread died) is
                # replaced once a cool-down has passed.
                self._probe_until = now + self._cooldown_s
                return
            else:
                wait = self._probe_until - now
        raise self._unavailable(
            "the backend did not answer; not called again yet", retry_after=wait
        )

    def answered(self) -> None:
        """The backend answered (whatever it said): it is up."""
        with self._lock:
            self._open_until = None
            self._cooldown_s = self._first_cooldown_s

    def failed(self) -> None:
        """The call got no answer within its budget: refuse calls for a cool-down, longer
        each time the backend fails again before it answered."""
        with self._lock:
            if self._open_until is not None:
                self._cooldown_s = min(self._cooldown_s * 2, self._max_cooldown_s)
            self._open_until = self._clock() + self._cooldown_s
            self._probe_until = 0.0
