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

It also records what the verifier decided: each cited sentence of the output as a
:class:`Supported` (where it is, which citations back it and how strongly), and, per cited
passage, the stretch of it that supports the answer (``Citation.supporting_text``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from groundwork.domain.citations import Citation, GroundingSupport, Segment
from groundwork.text.sentences import split_sentences

if TYPE_CHECKING:
    from collections.abc import Sequence

    from groundwork.answer.verification import CitationVerifier, Verdict
    from groundwork.domain.cards import Card

_MARKER = re.compile(r"(\s*)\[(\d{1,3})\]")
_LEADING_MARKERS = re.compile(r"(?:\s*\[\d{1,3}\])+\s*")
_PARTIAL_MARKER = re.compile(r"\[\d{0,3}")
# Where held text starts in an unfinished sentence: its first marker, a marker that may still
# be arriving at the end, or trailing whitespace (which a removed marker would take with it).
_HOLD = re.compile(r"\s*\[\d{1,3}\]|\s*\[\d{0,3}$|\s+$")
# Markers followed by a capital also end a sentence: a list item has no full stop.
_MARKER_RUN = re.compile(r"\[\d{1,3}\](?:\s*\[\d{1,3}\])*\s+")
_TRAILING_MARKERS = re.compile(r"(?:\s*\[\d{1,3}\])+\s*$")


@dataclass(frozen=True)
class Supported:
    """A cited sentence of the output: character offsets into it (the sentence without its
    trailing markers), where its markers end, and its citations with their scores."""

    start: int
    end: int
    markers_end: int
    citations: tuple[int, ...]
    scores: tuple[float, ...]

    def support(self, answer: str) -> GroundingSupport | None:
        """As a ``grounding_supports`` item of ``answer`` (the text delivered), with UTF-8
        byte offsets; None when the answer was cut before the sentence's markers."""
        if self.markers_end > len(answer):
            return None
        start = len(answer[: self.start].encode())
        text = answer[self.start : self.end]
        return GroundingSupport(
            segment=Segment(start_index=start, end_index=start + len(text.encode()), text=text),
            citation_indices=list(self.citations),
            confidence_scores=[round(score, 4) for score in self.scores],
        )


class CitationStream:
    """Feed it the generator's deltas; it returns the text to send, markers final."""

    def __init__(self, passages: Sequence[Card], verifier: CitationVerifier) -> None:
        self._passages = passages
        self._verifier = verifier
        self._pending = ""  # the unfinished sentence, and whatever follows it
        self._sent = 0  # characters of ``_pending`` already sent; never past its first marker
        self._order: dict[int, int] = {}  # passage index -> citation index
        self._scores: list[float] = []
        self._at = 0  # where the pending sentence starts in the output
        self._support: dict[int, tuple[int, int]] = {}  # passage index -> its supporting stretch
        self.supported: list[Supported] = []
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
        return [
            Citation.from_card(self._passages[p], i, self._supporting_text(p))
            for p, i in self._order.items()
        ]

    def grounding_supports(self, answer: str) -> list[GroundingSupport]:
        """The cited sentences of ``answer``, the text as delivered (it may have been cut
        short after this stream, by ``stop`` or ``max_tokens``)."""
        found = (supported.support(answer) for supported in self.supported)
        return [support for support in found if support is not None]

    def _supporting_text(self, passage: int) -> str | None:
        stretch = self._support.get(passage)
        return self._passages[passage].text[stretch[0] : stretch[1]] if stretch else None

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
        out, position, placed = "", self._sent, dict[int, None]()
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
                placed[chosen] = None
                index = self._order.setdefault(chosen, len(self._order))
                out += f"{marker.group(1)}[{index + 1}]"
        out += sentence[position:]
        self._record(sentence[: self._sent] + out, list(placed), verdict)
        return out

    def _record(self, written: str, placed: list[int], verdict: Verdict) -> None:
        """Remember a finished sentence's support; ``written`` is all of it, as output."""
        start, self._at = self._at, self._at + len(written)
        trailing = _TRAILING_MARKERS.search(written)
        body = written[: trailing.start()] if trailing else written.rstrip()
        if not placed or not body.strip():
            return
        lead = len(body) - len(body.lstrip())
        self.supported.append(
            Supported(
                start=start + lead,
                end=start + len(body),
                markers_end=start + len(written.rstrip()),
                citations=tuple(self._order[p] for p in placed),
                scores=tuple(verdict.confidence(p) for p in placed),
            )
        )
        for span in verdict.spans:
            if span.passage in placed:
                known = self._support.get(span.passage, (span.start, span.end))
                self._support[span.passage] = (min(known[0], span.start), max(known[1], span.end))
