"""The circuit breaker in front of each network backend: open after a call got no answer,
one probe at a time after each cool-down, cool-downs doubling while the backend stays away."""

from __future__ import annotations

import pytest

from groundwork.circuit import Circuit
from groundwork.storage.errors import StorageUnavailable


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _refused(circuit: Circuit) -> float:
    with pytest.raises(StorageUnavailable) as refused:
        circuit.check()
    assert refused.value.retry_after is not None
    return refused.value.retry_after


def test_given_failed_probes_then_cool_downs_double_up_to_the_cap_and_an_answer_resets_them() -> (
    None
):
    clock = Clock()
    circuit = Circuit(StorageUnavailable, cooldown_s=2.0, max_cooldown_s=5.0, clock=clock)
    waits = []

    circuit.failed()
    for _ in range(3):
        waits.append(_refused(circuit))
        clock.now += waits[-1]
        circuit.check()  # the probe goes through, and gets no answer
        circuit.failed()
    waits.append(_refused(circuit))
    clock.now += waits[-1]
    circuit.check()
    circuit.answered()
    circuit.check()
    circuit.failed()

    assert waits == [2.0, 4.0, 5.0, 5.0]
    assert _refused(circuit) == 2.0  # after an answer the first cool-down again


def test_given_a_probe_out_then_other_calls_fail_fast_until_it_reports() -> None:
    clock = Clock()
    circuit = Circuit(StorageUnavailable, cooldown_s=2.0, clock=clock)
    circuit.failed()
    clock.now += 2.0

    circuit.check()  # the probe
    clock.now += 0.5
    waiting = _refused(circuit)
    circuit.answered()

    assert waiting == pytest.approx(1.5)
    circuit.check()  # closed: everyone goes through
    circuit.check()
