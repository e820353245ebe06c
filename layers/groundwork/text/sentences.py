"""Sentence segmentation that returns character spans, so callers can keep exact offsets."""

from __future__ import annotations

import re
from typing import NamedTuple

# Abbreviations after which a period does not end a sentence (English, German, French, Spanish,
# Italian, Dutch), lower-cased and without their final period; "v" as in "Brown v. Board".
_ABBREVIATIONS = frozenset(
    """mr mrs ms dr prof sr jr st vs etc e.g i.e cf al fig figs no nos vol vols pp approx inc ltd
    co corp dept est gen gov lt col capt sgt rev hon ph.d m.d b.a m.a ed eds jan feb mar apr jun
    jul aug sep sept oct nov dec mon tue wed thu fri sat sun u.s u.k u.n e.u a.m p.m min max
    z.b bzw usw vgl ca nr str hr fr frau dipl ing mme mlle mm env cf sra srta pág núm dña
    ecc sig dott pag blz bijv v p pub u.s.c stat""".split()
)
# A sentence ends at . ! ? or an ellipsis (and the full stops of CJK, Devanagari, Arabic,
# Armenian, Ethiopic), optionally followed by more of . ! ? … and closing quotes or brackets.
_STOPS = ".!?…。！？｡．؟۔।॥։።"
_TAIL = re.compile(r"[.!?…]*[\"'”’»」』)\]）]*")
_TAIL_START = frozenset(".!?…\"'”’»」』)]）")
# Stops that end a sentence even with no space after them (CJK text has none).
_TIGHT_STOPS = frozenset("。！？｡．؟۔।॥։።")
# A paragraph: lines joined until a blank line, a list item, a Markdown heading or a table row.
_BLOCK = re.compile(
    r"^[ \t]*#{1,6}[ \t][^\n]*"
    r"|[^\n]+(?:\n(?!\s*\n)(?!\s*(?:[-*•+]|\d+[.)]|#{1,6}|\|)\s)(?<!\|\n)[^\n]+)*",
    re.MULTILINE,
)
# A list marker opening a block ("1. ", "a) ") is not a sentence of its own.
_LIST_MARKER = re.compile(r"\s*(?:\d{1,3}|[a-zA-Z])[.)]\s")
# Labels that number what follows them ("2. To fast…", "Article. IV. Section 1. Full Faith…",
# "First. To all cases…") end in a period but are no sentence: they open the one after them.
_LABEL = (
    r"(?:\(?(?:\d{1,3}|[a-zA-Z]|[IVXLC]{2,7})\)?"
    r"|(?:Section|Sec|Article|Art|Chapter|Ch|Part|Lesson|Amendment|No|Nr)\.?"
    r"(?: (?:\d{1,3}|[IVXLC]{1,7}))?"
    r"|First|Second|Third|Fourth|Fifth|Sixth|Seventh|Eighth|Ninth|Tenth)\."
)
_LABELS = re.compile(rf"{_LABEL}(?:\s+{_LABEL})*")
# A list run into its sentence ("…of the Church are: 1. To hear Mass…"): the label after the
# colon opens the next sentence.
_LABEL_AFTER_COLON = re.compile(rf"[:;]\s+({_LABEL})$")
# No run of labels is longer than this, nor a label's last word ("Seventh").
_LONGEST_LABELS = 32
_LONGEST_WORD = 7
_LABEL_OPENERS = frozenset("0123456789(ABCDEFGHIJKLMNOPQRSTUVWXYZ")
# What may open a word before an abbreviation: "(Dr. Smith)".
_OPENERS = "([{\"'“‘«¿¡"
_NEXT_CHAR = re.compile(r"\s*(\S)")


class Span(NamedTuple):
    start: int
    end: int
    text: str


# A check splits every sentence of 2 MB of facts: tuple.__new__ builds a span without the
# Python-level call of a NamedTuple's own __new__.
_new_span = tuple.__new__
# No abbreviation in the list is longer than this, so a longer word before a period is none.
_LONGEST_ABBREVIATION = max(map(len, _ABBREVIATIONS))


def split_sentences(text: str) -> list[Span]:
    """Split ``text`` into sentences; spans are character offsets, end exclusive, trimmed.

    Holds up on abbreviations ("Dr.", "z.B."), initials ("J. Smith"), decimals ("3.14"),
    URLs and domains ("example.com"), closing quotes, ellipses followed by lower case,
    Markdown lists, headings and tables, and CJK full stops with no space after them.
    """
    spans: list[Span] = []
    append = spans.append
    # str.find looks for one character at memchr speed, several times faster than a regular
    # expression scans for a class of them; a stop missing from the text costs one check.
    marks = [mark for mark in _STOPS if mark in text]
    # Text with no line break is one paragraph: no need to scan it for paragraphs.
    blocks = (m.span() for m in _BLOCK.finditer(text)) if "\n" in text else ((0, len(text)),)
    for start, limit in blocks:
        marker = _LIST_MARKER.match(text, start, limit)
        skip_until = marker.end() if marker else start
        scanned = start
        # One loop with no calls in the common case: this runs over every fact of a check.
        for stop in _positions(text, marks, start, limit):
            if stop < scanned:
                continue  # inside the run of stops and closers that ended the last candidate
            end = stop + 1
            if end < limit and text[end] in _TAIL_START:
                tail = _TAIL.match(text, end, limit)
                end = tail.end() if tail else end
            scanned = end
            if end <= skip_until:
                continue
            if text[stop] not in _TIGHT_STOPS:
                if end < limit and not text[end].isspace():
                    continue  # "3.14", "example.com", "e.g.x", "?!"
                if (
                    text[stop] == "."
                    and text[stop - 1 : stop].isalpha()
                    and not (
                        stop > _LONGEST_ABBREVIATION
                        and text[stop - _LONGEST_ABBREVIATION - 1 : stop].isalpha()
                    )
                    and _abbreviated(text, stop)
                ):
                    continue
                if text[end : end + 1] == " " and not text[end + 1 : end + 2].isspace():
                    following = text[end + 1 : end + 2]  # the usual single space
                else:
                    found = _NEXT_CHAR.match(text, end, limit)
                    following = found[1] if found else ""
                if following and (following.islower() or following in ",;:"):
                    continue
            piece = text[start:end]
            stripped = piece.strip()
            if len(stripped) <= _LONGEST_LABELS and _LABELS.fullmatch(stripped):
                continue
            # A label's last word is short and opens with a digit, a capital or a bracket:
            # most sentences end otherwise, and pay for no pattern.
            word = text.rfind(" ", start, stop) + 1
            opened = (
                _LABEL_AFTER_COLON.search(text, max(start, end - _LONGEST_LABELS), end)
                if word and stop - word <= _LONGEST_WORD and text[word] in _LABEL_OPENERS
                else None
            )
            if opened:  # the sentence ends at its colon, and the next opens with the label
                end = opened.start(1)
                piece = text[start:end]
                stripped = piece.strip()
            if stripped:
                offset = start + piece.index(stripped[0])
                append(_new_span(Span, (offset, offset + len(stripped), stripped)))
            start = end
        piece = text[start:limit]
        stripped = piece.strip()
        if stripped:
            offset = start + piece.index(stripped[0])
            append(Span(offset, offset + len(stripped), stripped))
    return spans


def _positions(text: str, marks: list[str], start: int, limit: int) -> list[int]:
    """Where each of ``marks`` occurs in ``text[start:limit]``, in order."""
    found: list[int] = []
    append = found.append
    find = text.find
    for mark in marks:
        position = find(mark, start, limit)
        while position >= 0:
            append(position)
            position = find(mark, position + 1, limit)
    if len(marks) > 1:
        found.sort()
    return found


def _abbreviated(text: str, stop: int) -> bool:
    """Whether the period at ``stop`` closes an abbreviation ("Dr.") or an initial ("J.")."""
    before = text[max(0, stop - 12) : stop].rsplit(None, 1)
    word = before[-1].lstrip(_OPENERS) if before else ""
    return word.lower() in _ABBREVIATIONS or (len(word) == 1 and word.isupper())
