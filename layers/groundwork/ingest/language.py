"""The language of each card: what the document declares, else what its text is written in.

A declared language (front matter ``language:``, an HTML ``lang``, a Gutenberg
``Language:`` header, a JSONL row's field, ``groundwork ingest --language``) wins. Otherwise
the whole document is detected once, and a passage keeps the document's language unless it
is itself long enough and clearly in another one: short passages (a heading, a shell
command, a list of names) are too little text to judge alone, and a misread one would be
preferred for questions in a language the collection does not hold.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from groundwork.chat.language import detect_language
from groundwork.text.language_names import NAMES

if TYPE_CHECKING:
    from groundwork.ingest.document import Document

#: Codes by English name, for headers that spell the language out (``Language: German``).
_CODES = {name.lower(): code for code, name in NAMES.items()}
_CODE = re.compile(r"^([a-z]{2})(?:[-_][a-z0-9]+)*$")
_FENCED = re.compile(r"^(```|~~~).*?^\1[^\n]*$", re.DOTALL | re.MULTILINE)
#: Characters of a document (or of a passage) read to detect its language: enough for any
#: language, and a bound on the time a huge file takes.
DOCUMENT_SAMPLE = 20_000
#: A passage shorter than this (in characters of prose) takes its document's language.
PASSAGE_MIN_CHARS = 200


def declared_language(value: str | None) -> str | None:
    """An ISO 639-1 code from what a file or a caller declares: ``de``, ``de-DE``, ``en_US``,
    ``German``; None for anything else (the text is then detected)."""
    if not value:
        return None
    value = value.strip().lower()
    match = _CODE.match(value)
    if match:
        return match.group(1)
    return _CODES.get(value.split()[0] if value else "")


def card_languages(document: Document) -> list[str | None]:
    """The language of each of ``document``'s passages, in order."""
    declared = declared_language(document.language)
    prose = [_prose(passage.text) for passage in document.passages]
    detected = declared or detect_language("\n".join(prose)[:DOCUMENT_SAMPLE])
    languages: list[str | None] = []
    for passage, text in zip(document.passages, prose, strict=True):
        own = declared_language(passage.language)
        if own is None and declared is None and len(text) >= PASSAGE_MIN_CHARS:
            own = detect_language(text[:DOCUMENT_SAMPLE])
        languages.append(own or detected)
    return languages


def _prose(text: str) -> str:
    """The passage without its code blocks: code is in no natural language."""
    return " ".join(_FENCED.sub(" ", text).split())
