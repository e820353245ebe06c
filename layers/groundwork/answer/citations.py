"""Turns the generator's passage markers into the response's numbering, sentence by sentence.

``[n]`` in the generator's text names ``passages[n-1]``. In the output, ``[m]`` names
``citations[m-1]``, whose ``document_index`` is ``m-1``: markers are renumbered by first
appearance. Each sentence is checked by the verifier: a marker whose passage does not
support the sentence (or that names no retrieved passage) moves to the passage that does, or
is removed when none does; nothing is cited that was not retrieved.

Text streams through as it arrives, except from a sentence's first marker to the sentence's
end: that part is held until the sentence is complete, so that the verifier can judge the
whole sentence and its markers go out already verified and numbered. A marker split across
deltas ("[1" then "2]") is never sent half-way.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from groundwork.domain.citations import Citation
from groundwork.text.sentences import split_sentences

if TYPE_CHECKING:
    from collections.abc import Sequence

    from groundwork.answer.verification import CitationVerifier
    from groundwork.domain.cards import Card

_MARKER = re.compile(r"(\s*)\[(\d{1,3})\]")
_LEADING_MARKERS = re.compile(r"(?:\s*\[\d{1,3}\])+\s*")
_PARTIAL_MARKER = re.compile(r"\[\d{0,3}")
# Where held text starts in an unfinished sentence: its first marker, a marker that may still
# be arriving at the end, or trailing whitespace (which a removed marker would take with it).
_HOLD = re.compile(r"\s*\[\d{1,3}\]|\s*\[\d{0,3}$|\s+$")
# Markers followed by a capital also end a sentence: a list item has no full stop.
_MARKER_RUN = re.compile(r"\[\d{1,3}\](?:\s*\[\d{1,3}\])*\s+")


class CitationStream:
    """Feed it the generator's deltas; it returns the text to send, markers final."""

    def __init__(self, passages: Sequence[Card], verifier: CitationVerifier) -> None:
        self._passages = passages
        self._verifier = verifier
        self._pending = ""  # the unfinished sentence, and whatever follows it
        self._sent = 0  # characters of ``_pending`` already sent; never past its first marker
        self._order: dict[int, int] = {}  # passage index -> citation index
        self._scores: list[float] = []
        self.cited_sentences = 0  # sentences the generator gave a marker (before verification)
        self.supported_sentences = 0  # of those, the ones whose marker the verifier confirmed

    def feed(self, delta: str) -> str:
        self._pending += delta
        out = self._finish_sentences(final=False)
        hold = _HOLD.search(self._pending, self._sent)
        cut = hold.start() if hold else len(self._pending)
        if cut > self._sent:
            out += self._pending[self._sent : cut]
            self._sent = cut
        return out

    def close(self) -> str:
        """The rest of the text, once the generator is done."""
        return self._finish_sentences(final=True)

    @property
    def citations(self) -> list[Citation]:
        return [Citation.from_card(self._passages[p], i) for p, i in self._order.items()]

    @property
    def support_score(self) -> float | None:
        """Mean support of the answer's checkable sentences; None when nothing was checked."""
        if not self._scores or not self._passages:
            return None
        return round(sum(self._scores) / len(self._scores), 4)

    def _finish_sentences(self, *, final: bool) -> str:
        out = ""
        while True:
            end = self._sentence_end()
            if end is None:
                if not final or not self._pending:
                    return out
                end = len(self._pending)
            out += self._finish(self._pending[:end])
            self._pending, self._sent = self._pending[end:], 0

    def _sentence_end(self) -> int | None:
        """Where the sentence after the first one starts, once it has begun; markers right
        after a sentence's full stop belong to that sentence."""
        ends: list[int] = []
        for span in split_sentences(self._pending)[1:]:
            leading = _LEADING_MARKERS.match(self._pending, span.start)
            start = leading.end() if leading else span.start
            if start < len(self._pending) and not _PARTIAL_MARKER.fullmatch(self._pending, start):
                ends.append(start)
                break
        for run in _MARKER_RUN.finditer(self._pending):
            if run.end() < len(self._pending) and self._pending[run.end()].isupper():
                ends.append(run.end())
                break
        return min(ends, default=None)

    def _finish(self, sentence: str) -> str:
        markers = list(_MARKER.finditer(sentence))
        verdict = self._verifier.verify(_MARKER.sub("", sentence).strip(), self._passages)
        if verdict.checkable:
            self._scores.append(verdict.score)
        cited = [int(m.group(2)) - 1 for m in markers]
        if markers:
            self.cited_sentences += 1
        keep = [p for p in cited if p in verdict.supporting]
        if keep:
            self.supported_sentences += 1
        elif markers and verdict.supporting:
            keep = [verdict.supporting[0]]  # moved to the passage that does support it
        out, position, placed = "", self._sent, set[int]()
        for marker in markers:
            out += sentence[position : marker.start()]
            position = marker.end()
            number = int(marker.group(2)) - 1
            if number in keep and number not in placed:
                chosen: int | None = number
            elif not placed and keep and keep[0] not in cited:
                chosen = keep[0]
            else:
                chosen = None
            if chosen is not None:
                placed.add(chosen)
                index = self._order.setdefault(chosen, len(self._order))
                out += f"{marker.group(1)}[{index + 1}]"
        return out + sentence[position:]
