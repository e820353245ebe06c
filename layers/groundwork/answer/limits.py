"""The request's ``stop`` sequences and ``max_tokens``, enforced on the text sent."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Literal

from groundwork.text.tokens import count_tokens

if TYPE_CHECKING:
    from collections.abc import Sequence


class OutputLimit:
    """Passes text through until a stop sequence appears or the token budget is spent.

    The tail that could begin a stop sequence is held back until the next delta shows it
    does not, so a stop sequence split across deltas is still caught. Tokens are counted
    per delta with the tokenizer ``usage`` reports in (a word cut between two deltas may
    count a piece more or less than whole; ``usage`` counts the whole text).
    """

    def __init__(self, stop: Sequence[str], max_tokens: int | None) -> None:
        self._stop = [s for s in stop if s]
        self._budget = max_tokens
        self._held = ""
        self.tokens = 0
        self.finish_reason: Literal["stop", "length"] | None = None

    def feed(self, text: str) -> str:
        if self.finish_reason is not None:
            return ""
        text = self._held + text
        self._held = ""
        hits = [i for i in (text.find(s) for s in self._stop) if i >= 0]
        if hits:
            self.finish_reason = "stop"
            return self._spend(text[: min(hits)])
        keep = max((self._prefix_at_end(text, s) for s in self._stop), default=0)
        if keep:
            text, self._held = text[:-keep], text[-keep:]
        return self._spend(text)

    def flush(self) -> str:
        """What is still held once the answer is complete."""
        held, self._held = self._held, ""
        return "" if self.finish_reason is not None else self._spend(held)

    @staticmethod
    def _prefix_at_end(text: str, stop: str) -> int:
        for size in range(min(len(stop) - 1, len(text)), 0, -1):
            if text.endswith(stop[:size]):
                return size
        return 0

    def _spend(self, text: str) -> str:
        if not text:
            return ""
        tokens = count_tokens(text)
        if self._budget is None or self.tokens + tokens <= self._budget:
            self.tokens += tokens
            return text
        self.finish_reason = "length"
        left = self._budget - self.tokens
        # Cut between words, so a marker is never cut in two.
        fitting = ""
        for word in re.finditer(r"\S+", text):
            candidate = text[: word.end()]
            if count_tokens(candidate) > left:
                break
            fitting = candidate
        self.tokens += count_tokens(fitting)
        return fitting
