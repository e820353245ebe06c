"""Conversations and their questions in SQLite."""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING

from groundwork.storage.conversations import ConversationStore, place
from groundwork.storage.errors import AlreadyExists, NotFound
from groundwork.storage.records import ConversationRecord, QuestionRecord
from groundwork.storage.sqlite_idempotency import complete_in

if TYPE_CHECKING:
    from pydantic import JsonValue

    from groundwork.storage.records import Completion
    from groundwork.storage.sqlite_db import SQLiteDatabase


class SQLiteConversationStore(ConversationStore):
    def __init__(self, database: SQLiteDatabase) -> None:
        self._db = database

    def _now(self) -> int:
        return self._db.now()

    def _insert(self, conversation: ConversationRecord) -> None:
        try:
            with self._db.write() as db:
                db.execute(
                    "INSERT INTO conversations (id, body) VALUES (?, ?)",
                    (conversation.id, conversation.model_dump_json()),
                )
        except sqlite3.IntegrityError as error:
            raise AlreadyExists(f"conversation {conversation.id}") from error

    def get_conversation(self, conversation_id: str) -> ConversationRecord | None:
        with self._db.read() as db:
            return _read(db, conversation_id)

    def set_scope(self, conversation_id: str, scope: JsonValue) -> ConversationRecord:
        return self._update(conversation_id, {"scope": scope})

    def set_settings(
        self, conversation_id: str, settings: dict[str, JsonValue]
    ) -> ConversationRecord:
        return self._update(conversation_id, {"settings": settings})

    def add_question(
        self,
        question: QuestionRecord,
        *,
        version_of: int | None = None,
        completion: Completion | None = None,
    ) -> QuestionRecord:
        now = self._db.now()
        with self._db.write() as db:
            conversation, questions = _load(db, question.conversation_id)
            conversation, placed = place(conversation, questions, question, version_of, now)
            try:
                db.execute(
                    "INSERT INTO questions (id, conversation_id, seq, body) VALUES (?, ?, ?, ?)",
                    (placed.id, placed.conversation_id, placed.seq, placed.model_dump_json()),
                )
            except sqlite3.IntegrityError as error:
                raise AlreadyExists(f"question {placed.id}") from error
            _write(db, conversation)
            if completion is not None:
                complete_in(db, completion, now)
        return placed

    def get_question(self, conversation_id: str, question_id: int) -> QuestionRecord | None:
        with self._db.read() as db:
            row = db.execute(
                "SELECT body FROM questions WHERE id = ? AND conversation_id = ?",
                (question_id, conversation_id),
            ).fetchone()
        return QuestionRecord.model_validate_json(row[0]) if row else None

    def select_version(self, conversation_id: str, question_id: int) -> ConversationRecord:
        with self._db.write() as db:
            conversation = _read(db, conversation_id)
            row = db.execute(
                "SELECT body FROM questions WHERE id = ? AND conversation_id = ?",
                (question_id, conversation_id),
            ).fetchone()
            if conversation is None or row is None:
                raise NotFound(f"question {question_id} in conversation {conversation_id}")
            turn_id = QuestionRecord.model_validate_json(row[0]).turn_id
            conversation = conversation.model_copy(
                update={
                    "selected": {**conversation.selected, turn_id: question_id},
                    "updated": self._db.now(),
                }
            )
            _write(db, conversation)
        return conversation

    def _load(self, conversation_id: str) -> tuple[ConversationRecord, list[QuestionRecord]]:
        with self._db.read() as db:
            return _load(db, conversation_id)

    def _list(
        self, user_id: str, count: int, before: tuple[int, str] | None
    ) -> list[ConversationRecord]:
        # The expressions are those of the index `conversations_user` (sqlite_db.py).
        query = "SELECT body FROM conversations WHERE json_extract(body, '$.user_id') = ?"
        values: list[object] = [user_id]
        if before is not None:
            query += " AND (json_extract(body, '$.updated'), id) < (?, ?)"
            values += before
        query += " ORDER BY json_extract(body, '$.updated') DESC, id DESC LIMIT ?"
        with self._db.read() as db:
            rows = db.execute(query, (*values, count)).fetchall()
        return [ConversationRecord.model_validate_json(r[0]) for r in rows]

    def _update(self, conversation_id: str, changes: dict[str, object]) -> ConversationRecord:
        with self._db.write() as db:
            conversation = _read(db, conversation_id)
            if conversation is None:
                raise NotFound(f"conversation {conversation_id}")
            conversation = conversation.model_copy(update={**changes, "updated": self._db.now()})
            _write(db, conversation)
        return conversation


def _read(db: sqlite3.Connection, conversation_id: str) -> ConversationRecord | None:
    row = db.execute("SELECT body FROM conversations WHERE id = ?", (conversation_id,)).fetchone()
    return ConversationRecord.model_validate_json(row[0]) if row else None


def _load(
    db: sqlite3.Connection, conversation_id: str
) -> tuple[ConversationRecord, list[QuestionRecord]]:
    conversation = _read(db, conversation_id)
    if conversation is None:
        raise NotFound(f"conversation {conversation_id}")
    rows = db.execute(
        "SELECT body FROM questions WHERE conversation_id = ? ORDER BY seq", (conversation_id,)
    ).fetchall()
    return conversation, [QuestionRecord.model_validate_json(r[0]) for r in rows]


def _write(db: sqlite3.Connection, conversation: ConversationRecord) -> None:
    db.execute(
        "UPDATE conversations SET body = ? WHERE id = ?",
        (conversation.model_dump_json(), conversation.id),
    )
