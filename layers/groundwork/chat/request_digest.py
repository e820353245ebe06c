"""What a retry of a ``request_id`` is compared on, so that a saved answer is only ever sent
again for the request it answered (docs/chat.md, *Idempotency*).

The digest has two parts: the question (its text, ``conversation_id`` and ``version_of``) and
everything else the request sent that changes the answer or its form: ``collection``,
``scope``, ``tags``, ``card_ids``, ``quality``, ``language``, ``export``, ``bypass_cache``, the
earlier ``messages`` (the history), ``origin`` and ``tools``, as sent (a field left out is not
the same as its default: without ``quality`` a conversation's own setting applies). Only
``stream`` is left out: it is how the answer travels, and a saved answer is sent whole or
streamed alike. A record saved before options were compared has the question part alone,
and only that is compared.
"""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from groundwork.chat.request import ChatRequest

#: Not compared: how the answer is sent, and the key itself.
_NOT_COMPARED = {"stream", "request_id"}

Difference = Literal["question", "options"]


def request_digest(body: ChatRequest, *, visible_cards: str | None = None) -> str:
    """``<question digest>:<options digest>``, kept in the request's idempotency record.

    ``visible_cards`` is the fingerprint of the part of the searched collections the user
    sees (``auth.access.restriction_fingerprint``; None when they see them whole): once a
    grant changed, a saved answer may quote what the user no longer sees, so it is an option.
    """
    question = f"{body.question()}\x00{body.conversation_id or ''}\x00{body.version_of or ''}"
    options = body.model_dump(mode="json", exclude_unset=True, exclude=_NOT_COMPARED)
    options["messages"] = [m.model_dump(mode="json") for m in body.messages[:-1]]
    if visible_cards is not None:
        options["visible_cards"] = visible_cards
    canonical = json.dumps(options, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return f"{_sha256(question)}:{_sha256(canonical)}"


def difference(stored: str | None, digest: str) -> Difference | None:
    """How the request of ``digest`` differs from the one ``stored`` was made for, if at all."""
    if stored is None:
        return None
    old_question, _, old_options = stored.partition(":")
    question, _, options = digest.partition(":")
    if old_question != question:
        return "question"
    if old_options and old_options != options:
        return "options"
    return None


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()
