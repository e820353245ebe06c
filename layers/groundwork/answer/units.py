"""What a passage is made of, for reading it: sentences, list items, table rows, code blocks.

The composer quotes units, not arbitrary spans. A paragraph is cut into sentences; a list item
is its own block (its label and its value stay together: "`max_connections`, maximum number of
allowable connections. (Default 100)"); a table row is one unit; a fenced code block is one
unit that keeps its line breaks, quoted after the sentence that introduces it; a quote is its
text, without the ``>`` markers the page shows as an indent. A piece of fewer
than three words ("(Default 100)") belongs to the sentence before it. Lines of fields
("Author: …", "Status: …", "Next: The System of Co-ordinates") are a metadata block, not prose,
and are left out; a line whose value quotes code ("For example: `request.query_params[…]`") or
whose label is one letter (an FAQ's "A: …") is prose.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from groundwork.text.sentences import split_sentences
from groundwork.text.terms import UNSPACED_CHARACTERS

Kind = Literal["sentence", "item", "row", "code"]

_FENCE = re.compile(r"^\s*(```|~~~)")
_ITEM = re.compile(r"^\s*(?:[-*+•]|\d{1,3}[.)])\s+")
_ROW = re.compile(r"^\s*\|.*\|\s*$")
_RULE = re.compile(r"^\s*\|?[\s:|-]*-{3,}[\s:|-]*\|?\s*$")
_HEADING = re.compile(r"^\s*#{1,6}\s")
# A quote's markers, which the page shows as an indent, not as text.
_QUOTE = re.compile(r"^\s{0,3}(?:>[ \t]?)+")
# "Author: Guido", "Created: 2001-07-05", "Next: The System of Co-ordinates": a field name of
# at most three words and a value that is no sentence (it ends without a full stop). A value
# that quotes code ("For example: `request.query_params['search']`", "Signature: `Response(…)`")
# and a one-letter name (an FAQ's "A: Use Rippling to …") are what the passage says.
_FIELD = re.compile(r"^\s*[A-Z][\w-]+(?:[ -][\w-]+){0,2}:[ \t]+(?!.*`)\S(?:.*[^.!?:\s])?\s*$")
#: A piece with fewer words than this (:func:`word_count`) is no sentence of its own.
MIN_WORDS = 3
_UNSPACED_RUN = re.compile(f"[{UNSPACED_CHARACTERS}]+")


@dataclass(frozen=True)
class Unit:
    text: str  # on one line, except a code block (its fences and line breaks kept)
    kind: Kind
    block: int  # which paragraph, list item, table or code block of the passage it is in
    #: The sentence right before a code block, which introduces it (its index among the units).
    intro: int | None = None

    @property
    def asks(self) -> bool:
        """A question in the text is not its answer."""
        return self.kind != "code" and self.text.rstrip("\"'”’)*_").endswith("?")

    @property
    def introduces(self) -> bool:
        """Ends in a colon: it introduces what follows (a list, a command)."""
        return self.kind != "code" and self.text.rstrip("*_").endswith(":")


def units(text: str) -> list[Unit]:
    """The passage's units, in order."""
    out: list[Unit] = []
    for block, (kind, body) in enumerate(_blocks(text)):
        if kind == "code":
            previous = out[-1] if out else None
            intro = len(out) - 1 if previous and previous.block == block - 1 else None
            out.append(Unit(body, "code", block, intro if _prose(previous) else None))
        elif kind == "row":
            out.append(Unit(" ".join(body.split()), "row", block))
        else:
            out.extend(Unit(s, kind, block) for s in _sentences(body))
    return out


def embedded(text: str) -> list[str]:
    """The units of ``text`` an answer reads by their vectors: all but code blocks, which are
    read through the sentence that introduces them."""
    return [unit.text for unit in units(text) if unit.kind != "code"]


def _prose(unit: Unit | None) -> bool:
    """A sentence of a paragraph (not a list item, which a list's code does not follow from)."""
    return unit is not None and unit.kind == "sentence"


def _blocks(text: str) -> list[tuple[Kind, str]]:
    """Paragraphs, list items, table rows and code blocks; metadata blocks and headings are
    dropped."""
    blocks: list[tuple[Kind, str]] = []
    lines: list[str] = []
    kind: Kind = "sentence"

    def close() -> None:
        nonlocal lines
        if lines and not all(_FIELD.match(line) for line in lines):
            blocks.append((kind, "\n".join(lines)))
        lines = []

    rows = iter(text.split("\n"))
    for line in rows:
        fence = _FENCE.match(line)
        line = line if fence else _QUOTE.sub("", line)
        if fence:
            close()
            code = [line]
            for inner in rows:
                code.append(inner)
                if inner.strip().startswith(fence.group(1)):
                    break
            blocks.append(("code", "\n".join(code)))
        elif not line.strip() or _HEADING.match(line):
            close()
        elif _ROW.match(line):
            close()
            if not _RULE.match(line):
                blocks.append(("row", line.strip()))
        elif _ITEM.match(line):
            close()
            kind, lines = "item", [_ITEM.sub("", line, count=1)]
        else:
            if not lines:
                kind = "sentence"
            lines.append(line)
    close()
    return blocks


def word_count(text: str) -> int:
    """Its words: those between spaces, with a run of Chinese or Japanese, which has none,
    counted as its character pairs (as the keyword side reads it, ``text.terms``)."""
    count = len(text.split())
    if not text.isascii():
        count += sum(max(len(run) - 2, 0) for run in _UNSPACED_RUN.findall(text))
    return count


def _sentences(body: str) -> list[str]:
    """The block's sentences on one line each; a piece too short to be one joins the
    sentence before it (or after it, at the start), as written between them: a space, or
    nothing after a Chinese or Japanese full stop."""
    joined = " ".join(body.split())
    out: list[tuple[int, int]] = []
    pending: int | None = None  # where the short pieces at the start begin
    for start, end, piece in split_sentences(joined):
        if word_count(piece) < MIN_WORDS:
            if out:
                out[-1] = (out[-1][0], end)
            elif pending is None:
                pending = start
            continue
        out.append((start if pending is None else pending, end))
        pending = None
    texts = [joined[start:end] for start, end in out]
    if pending is not None and word_count(joined[pending:]) >= MIN_WORDS:
        texts.append(joined[pending:].strip())
    return texts
