"""Conversations, their turns and the versions of a turn, kept as a tree.

Every question is a node whose parent is the version of the previous turn it followed. The
versions of a turn share a parent and a ``turn_id``; the conversation records the selected
version of each turn, and the feed walks from the first turn down the selected versions, so
the later turns of another version's branch are hidden while it is not selected.

A user's conversations are listed most recently updated first, a page at a time: the cursor
of a page is the listing key (``updated`` then id) of its last conversation.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections import defaultdict
from dataclasses import dataclass
from typing import TYPE_CHECKING

from groundwork.storage.errors import NotFound
from groundwork.storage.records import ConversationRecord, Turn

if TYPE_CHECKING:
    from pydantic import JsonValue

    from groundwork.storage.records import Completion, QuestionRecord

#: ``updated`` zero-padded, so that listing keys sort as (updated, id) pairs do; nothing in
#: them needs escaping in a URL's query (conversation ids are ``[A-Za-z0-9_.:-]``).
_LISTING_KEY = re.compile(r"(\d{12})\.(.+)", re.DOTALL)


class InvalidCursor(ValueError):
    """A cursor that no page of a listing returned."""


@dataclass(frozen=True)
class ConversationPage:
    conversations: list[ConversationRecord]
    #: Pass it back for the next page; None on the last page.
    next_cursor: str | None


def listing_key(updated: int, conversation_id: str) -> str:
    return f"{updated:012d}.{conversation_id}"


def parse_cursor(cursor: str) -> tuple[int, str]:
    """The (updated, id) a cursor names; ``InvalidCursor`` for anything else."""
    match = _LISTING_KEY.fullmatch(cursor)
    if match is None:
        raise InvalidCursor(f"not a conversation cursor: {cursor!r}")
    return int(match[1]), match[2]


class ConversationStore(ABC):
    def create_conversation(
        self,
        conversation_id: str,
        user_id: str,
        *,
        scope: JsonValue = None,
        settings: dict[str, JsonValue] | None = None,
    ) -> ConversationRecord:
        """Raises ``AlreadyExists``."""
        now = self._now()
        conversation = ConversationRecord(
            id=conversation_id,
            user_id=user_id,
            created=now,
            updated=now,
            scope=scope,
            settings=settings or {},
        )
        self._insert(conversation)
        return conversation

    @abstractmethod
    def get_conversation(self, conversation_id: str) -> ConversationRecord | None: ...

    @abstractmethod
    def set_scope(self, conversation_id: str, scope: JsonValue) -> ConversationRecord:
        """Save the scope (None resets it); ``NotFound``."""

    @abstractmethod
    def set_settings(
        self, conversation_id: str, settings: dict[str, JsonValue]
    ) -> ConversationRecord:
        """Replace the settings (quality, language…); ``NotFound``."""

    @abstractmethod
    def add_question(
        self,
        question: QuestionRecord,
        *,
        version_of: int | None = None,
        completion: Completion | None = None,
    ) -> QuestionRecord:
        """Store an answered question as the next turn, or as a new selected version of the
        turn of ``version_of``, in one transaction with the conversation's counter and, when
        given, the completion of the request's idempotency record.

        ``question.turn_id``, ``parent_id`` and ``seq`` are set here. Raises ``NotFound`` for a
        missing conversation or a ``version_of`` of another conversation, ``NotOwner`` when
        the idempotency record was taken over (then nothing is written), ``AlreadyExists``
        when the question id is taken.
        """

    @abstractmethod
    def get_question(self, conversation_id: str, question_id: int) -> QuestionRecord | None:
        """None also when the question belongs to another conversation."""

    @abstractmethod
    def select_version(self, conversation_id: str, question_id: int) -> ConversationRecord:
        """Select this version of its turn; ``NotFound``."""

    def feed(self, conversation_id: str) -> list[Turn]:
        """The selected branch, first turn first; ``NotFound`` for a missing conversation."""
        conversation, questions = self._load(conversation_id)
        return selected_branch(conversation, questions)

    def branch(self, conversation_id: str, question_id: int) -> list[QuestionRecord]:
        """The question and the versions it followed, first turn first: its history."""
        _, questions = self._load(conversation_id)
        by_id = {q.id: q for q in questions}
        if question_id not in by_id:
            raise NotFound(f"question {question_id} is not in conversation {conversation_id}")
        path = [by_id[question_id]]
        while path[-1].parent_id is not None:
            path.append(by_id[path[-1].parent_id])
        return path[::-1]

    def list_conversations(
        self, user_id: str, *, limit: int, cursor: str | None = None
    ) -> ConversationPage:
        """The user's conversations, most recently updated first (ties: by id, descending),
        at most ``limit``, after the page whose ``next_cursor`` is ``cursor``.

        Raises ``InvalidCursor``. A conversation updated while pages are read moves to the
        top: it is not on the later pages, and may be on none.
        """
        before = parse_cursor(cursor) if cursor is not None else None
        # One more than asked for tells whether another page follows.
        found = self._list(user_id, limit + 1, before)
        page = found[:limit]
        more = len(found) > limit
        return ConversationPage(page, listing_key(page[-1].updated, page[-1].id) if more else None)

    @abstractmethod
    def _now(self) -> int:
        """The store's clock, in seconds."""

    @abstractmethod
    def _insert(self, conversation: ConversationRecord) -> None:
        """Store a new conversation; ``AlreadyExists`` when its id is taken."""

    @abstractmethod
    def _load(self, conversation_id: str) -> tuple[ConversationRecord, list[QuestionRecord]]:
        """The conversation and all its questions by ``seq``; ``NotFound``."""

    @abstractmethod
    def _list(
        self, user_id: str, count: int, before: tuple[int, str] | None
    ) -> list[ConversationRecord]:
        """At most ``count`` of the user's conversations by (updated, id) descending, only
        those whose (updated, id) is below ``before`` when it is given."""


def selected_branch(
    conversation: ConversationRecord, questions: list[QuestionRecord]
) -> list[Turn]:
    children: dict[int | None, dict[int, list[QuestionRecord]]] = defaultdict(
        lambda: defaultdict(list)
    )
    for question in sorted(questions, key=lambda q: q.seq):
        children[question.parent_id][question.turn_id].append(question)
    turns: list[Turn] = []
    parent: int | None = None
    while children.get(parent):
        # One turn follows each version, since new questions go to the end of the branch.
        turn_id, versions = max(children[parent].items(), key=lambda item: item[1][0].seq)
        chosen = conversation.selected.get(turn_id)
        selected = next((v for v in versions if v.id == chosen), versions[-1])
        turns.append(Turn(turn_id=turn_id, selected=selected, versions=versions))
        parent = selected.id
    return turns


def place(
    conversation: ConversationRecord,
    questions: list[QuestionRecord],
    question: QuestionRecord,
    version_of: int | None,
    now: int,
) -> tuple[ConversationRecord, QuestionRecord]:
    """The question put in its turn, and the conversation counting it (and selecting it)."""
    seq = conversation.questions + 1
    selected = dict(conversation.selected)
    if version_of is None:
        branch = selected_branch(conversation, questions)
        parent_id = branch[-1].selected.id if branch else None
        turn_id = question.id
    else:
        target = next((q for q in questions if q.id == version_of), None)
        if target is None:
            raise NotFound(f"question {version_of} is not in conversation {conversation.id}")
        parent_id, turn_id = target.parent_id, target.turn_id
        selected[turn_id] = question.id
    placed = question.model_copy(
        update={
            "conversation_id": conversation.id,
            "turn_id": turn_id,
            "parent_id": parent_id,
            "seq": seq,
        }
    )
    counted = conversation.model_copy(
        update={
            "questions": seq,
            "selected": selected,
            "updated": now,
            "title": question.question if seq == 1 else conversation.title,
        }
    )
    return counted, placed
