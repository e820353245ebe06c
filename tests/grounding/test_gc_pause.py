"""The collector pause around a check: off while claims are verified, back on after, once."""

from __future__ import annotations

import gc
import threading
from typing import TYPE_CHECKING

import pytest

from groundwork.grounding.base import Support, Verifier
from groundwork.grounding.gc_pause import collector_paused
from groundwork.grounding.model import CheckRequest, Fact
from groundwork.grounding.service import check

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

    from groundwork.grounding.base import Passage

REQUEST = CheckRequest("Paris is in France.", [Fact("Paris is the capital of France.")])


class _Recording(Verifier):
    def __init__(self, *, fail: bool = False) -> None:
        self.enabled_during: list[bool] = []
        self._fail = fail

    def verify(self, claims: Sequence[str], passages: Sequence[Passage]) -> list[Support]:
        self.enabled_during.append(gc.isenabled())
        if self._fail:
            raise RuntimeError("verifier failed")
        return [Support(1.0, ((0, 1.0),)) for _ in claims]


@pytest.fixture(autouse=True)
def _collector_restored() -> Iterator[None]:
    was_enabled = gc.isenabled()
    yield
    if was_enabled:
        gc.enable()
    else:
        gc.disable()


def test_given_the_collector_on_when_a_check_runs_then_it_is_off_inside_and_on_after() -> None:
    gc.enable()
    verifier = _Recording()

    response = check(REQUEST, verifier)

    assert verifier.enabled_during == [False]
    assert gc.isenabled()
    assert response.claims[0].citation_indices == [0]


def test_given_a_verifier_that_fails_when_a_check_runs_then_the_collector_is_on_again() -> None:
    gc.enable()

    with pytest.raises(RuntimeError, match="verifier failed"):
        check(REQUEST, _Recording(fail=True))

    assert gc.isenabled()


def test_given_the_collector_off_when_a_check_runs_then_it_stays_off() -> None:
    gc.disable()

    check(REQUEST, _Recording())

    assert not gc.isenabled()


def test_given_overlapping_checks_when_the_first_ends_then_the_collector_stays_off() -> None:
    gc.enable()
    inside, release = threading.Event(), threading.Event()

    def long_check() -> None:
        with collector_paused():
            inside.set()
            release.wait(5)

    worker = threading.Thread(target=long_check)
    worker.start()
    inside.wait(5)
    with collector_paused():
        pass
    still_off = not gc.isenabled()
    release.set()
    worker.join(5)

    assert still_off
    assert gc.isenabled()
