"""Which URLs a citation may link to: http(s) and relative ones, nothing else.

A source's URL comes from the document (front matter, ``<link rel=canonical>``, a JSONL field)
and ends up in an ``<a href>`` of the page and of the HTML export: a ``javascript:`` or
``data:`` URL there runs in the reader's browser. It is checked at ingest (``cards_of``) and
again wherever a link is written (``chat/export.py``, ``web/static/answer.js``), so that an
index written before the check cannot bring one back.
"""

from __future__ import annotations

import re

#: A URL scheme (RFC 3986): a letter, then letters, digits, ``+``, ``-`` or ``.``, then ``:``.
_SCHEME = re.compile(r"([a-zA-Z][a-zA-Z0-9+.-]*):")
_FOLLOWED = frozenset({"http", "https"})


def safe_link(url: str | None) -> str | None:
    """``url`` when it is http(s) or relative, else None.

    Control characters refuse the URL outright: browsers drop tabs and newlines inside a URL
    and strip other leading ones, so ``java\\tscript:`` would still run.
    """
    if not url or any(ord(c) < 0x20 or ord(c) == 0x7F for c in url):
        return None
    scheme = _SCHEME.match(url.lstrip(" "))
    if scheme is None or scheme.group(1).lower() in _FOLLOWED:
        return url
    return None


def relative_link(location: str) -> str:
    """A stored file location as a relative link: ``javascript:x.md`` (a legal file name) would
    read as a scheme, ``./javascript:x.md`` is the file."""
    return location if safe_link(location) is not None else f"./{location}"
