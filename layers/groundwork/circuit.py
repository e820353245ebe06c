"""A circuit breaker per network backend (OpenSearch, DynamoDB), so that a backend that stopped
answering costs each request a moment, not a worker for the whole of a timeout.

Closed, every call goes through. A call that got no answer at all within its budget (refused
connections, timeouts: the backend is dead or hung) opens the circuit for ``cooldown_s``:
meanwhile calls fail at once with the backend's ``BackendUnavailable`` and a ``Retry-After``
of what is left of it. Then one call goes through as a probe while the others still fail
fast: its answer closes the circuit, its failure opens it again. So a hung backend holds at
most one worker of each process at a time, and the service recovers by itself, within a
cool-down of the backend's return, without a restart.

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

#: How long an open circuit refuses calls before letting a probe through.
COOLDOWN_S = 2.0


class Circuit:
    def __init__(
        self,
        unavailable: Callable[..., BackendUnavailable],
        *,
        cooldown_s: float = COOLDOWN_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._unavailable = unavailable
        self.cooldown_s = cooldown_s
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
                self._probe_until = now + self.cooldown_s
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

    def failed(self) -> None:
        """The call got no answer within its budget: refuse calls for a cool-down."""
        with self._lock:
            self._open_until = self._clock() + self.cooldown_s
            self._probe_until = 0.0
