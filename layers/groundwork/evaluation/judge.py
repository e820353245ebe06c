"""Whether an answer answers: its first sentence holds an expected fragment, its first citation
is an expected source, and whether it refused.

Comparisons ignore case, runs of whitespace, typographic quotes and inline Markdown (backticks,
emphasis), so that ``` `d1 | d2` ``` in a document matches ``d1 | d2`` expected.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from groundwork.answer.units import MIN_WORDS, word_count
from groundwork.text.sentences import split_sentences

_MARKER = re.compile(r"\s*\[\d{1,3}\]")
_MARKUP = re.compile(r"[`*]")
_QUOTES = str.maketrans({"’": "'", "‘": "'", "“": '"', "”": '"'})
_EDGE_PUNCTUATION = " .,;:!?()[]\"'"
_MARKER_RUN = re.compile(r"(?:\s*\[\d{1,3}\])+(?=\s+[^\s\[])")
# A fenced code block right after the first sentence (and its markers).
_CODE_AFTER = re.compile(r"(?:\s*\[\d{1,3}\])*\s*\n(```|~~~)[^\n]*\n.*?^\1[ \t]*$", re.S | re.M)


def normalized(text: str) -> str:
    return " ".join(_MARKUP.sub("", text.translate(_QUOTES)).casefold().split())


def without_markers(text: str) -> str:
    return _MARKER.sub("", text).strip()


def first_sentence(answer: str) -> str:
    """The answer's first sentence, its markers removed: what a reader takes as the answer.

    A piece of fewer than three words after it belongs to it ("… for no limits. (Default
    100)"), one before it too ("Section 2. The President shall be …", a label the composer's
    sentence opens with, :mod:`groundwork.answer.units`), and so does a fenced code block right
    after it: the sentence introduces the code, which a reader takes in with it.
    """
    ends = []
    for span in split_sentences(answer):
        # Markers followed by more text end a sentence too: a list item has no full stop.
        ends += [m.end() for m in _MARKER_RUN.finditer(answer, span.start, span.end)]
        ends.append(span.end)
    if not ends:
        return without_markers(answer)
    first = next(
        (i for i, end in enumerate(ends) if word_count(without_markers(answer[:end])) >= MIN_WORDS),
        len(ends) - 1,
    )
    end = ends[first]
    for following in ends[first + 1 :]:
        if word_count(without_markers(answer[end:following])) >= MIN_WORDS:
            break
        end = following
    code = _CODE_AFTER.match(answer, end)
    if code:
        end = code.end()
    return without_markers(answer[:end])


def holds_answer(sentence: str, answers: tuple[str, ...]) -> bool:
    said = normalized(sentence)
    return any(normalized(answer) in said for answer in answers)


def same_source(location: str, url: str, title: str | None, expected: str) -> bool:
    """``expected`` names this document: its path as ingested (or a path ending in it, or one
    it ends in), its URL without the fragment, or its title."""
    wanted = expected.strip()
    if title and normalized(title) == normalized(wanted):
        return True
    for have in (location, url.split("#", 1)[0]):
        if not have:
            continue
        a, b = PurePosixPath(have).parts, PurePosixPath(wanted).parts
        shorter = min(len(a), len(b))
        if shorter and a[-shorter:] == b[-shorter:]:
            return True
    return False


def under_section(headings: list[str], section: str) -> bool:
    """The card's headings (title first) hold ``section``: each of its parts, when it is a
    path ("Article 1 > Section 2"), in a heading of its own, in that order."""
    parts = [normalized(p).strip(_EDGE_PUNCTUATION) for p in section.split(" > ")]
    have = iter(normalized(h).strip(_EDGE_PUNCTUATION) for h in headings)
    return all(part and any(part in heading for heading in have) for part in parts)
