"""Conversations and their questions in the DynamoDB table, in one partition per conversation.

``CONVERSATION#<id>`` holds the conversation (sort key ``CONVERSATION``) and its questions
(``QUESTION#<id>``), so one consistent query loads a conversation whole. Every write of the
conversation is conditional on the ``revision`` it read (optimistic locking) and retried on
a conflict; a question is written in one ``TransactWriteItems`` with its conversation and,
when given, the completion of its idempotency record, so none is written without the others.

Every write of the conversation also sets its ``gsi1`` key, ``USER#<user>#CONVERSATIONS`` /
its listing key, so that one query of the index lists a user's conversations newest first.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from groundwork.storage.conversations import ConversationStore, listing_key, place
from groundwork.storage.dynamodb_idempotency import (
    completion_record,
    idempotency_item,
    owned_condition,
)
from groundwork.storage.dynamodb_table import (
    ConditionFailed,
    TransactionCanceled,
    key,
    n,
    number,
    s,
    text,
)
from groundwork.storage.errors import AlreadyExists, NotFound, NotOwner, StorageError
from groundwork.storage.records import ConversationRecord, QuestionRecord

if TYPE_CHECKING:
    from collections.abc import Callable

    from pydantic import JsonValue

    from groundwork.storage.dynamodb_table import DynamoTable, Item
    from groundwork.storage.records import Completion

#: Attempts of a conversation write that keeps losing the optimistic lock to other writers.
_CONFLICT_RETRIES = 10


class DynamoDBConversationStore(ConversationStore):
    def __init__(self, table: DynamoTable) -> None:
        self._table = table

    def _now(self) -> int:
        return self._table.now()

    def _insert(self, conversation: ConversationRecord) -> None:
        try:
            self._table.call(
                "put_item",
                TableName=self._table.name,
                Item=_conversation_item(conversation, 0),
                ConditionExpression="attribute_not_exists(pk)",
            )
        except ConditionFailed as error:
            raise AlreadyExists(f"conversation {conversation.id}") from error

    def get_conversation(self, conversation_id: str) -> ConversationRecord | None:
        item = self._table.get(f"CONVERSATION#{conversation_id}", "CONVERSATION")
        return ConversationRecord.model_validate_json(text(item, "body")) if item else None

    def set_scope(self, conversation_id: str, scope: JsonValue) -> ConversationRecord:
        return self._update(conversation_id, lambda c, _: c.model_copy(update={"scope": scope}))

    def set_settings(
        self, conversation_id: str, settings: dict[str, JsonValue]
    ) -> ConversationRecord:
        return self._update(
            conversation_id, lambda c, _: c.model_copy(update={"settings": settings})
        )

    def add_question(
        self,
        question: QuestionRecord,
        *,
        version_of: int | None = None,
        completion: Completion | None = None,
    ) -> QuestionRecord:
        # Read once: a takeover after this read still fails the transaction's condition.
        finished = completion_record(self._table, completion) if completion else None
        for _ in range(_CONFLICT_RETRIES):
            conversation, questions, revision = self._read(question.conversation_id)
            conversation, placed = place(
                conversation, questions, question, version_of, self._table.now()
            )
            actions: list[dict[str, Any]] = [
                {
                    "Put": {
                        "TableName": self._table.name,
                        "Item": _question_item(placed),
                        "ConditionExpression": "attribute_not_exists(pk)",
                    }
                },
                {"Put": self._conversation_put(conversation, revision)},
            ]
            if finished is not None:
                actions.append(
                    {
                        "Put": {
                            "TableName": self._table.name,
                            "Item": idempotency_item(finished),
                            **owned_condition(finished.owner),
                        }
                    }
                )
            try:
                self._table.call("transact_write_items", TransactItems=actions)
            except TransactionCanceled as error:
                if error.failed(0):
                    raise AlreadyExists(f"question {placed.id}") from error
                if finished is not None and error.failed(2):
                    raise NotOwner(f"request {finished.request_id} was taken over") from error
                continue  # the conversation changed since it was read
            return placed
        raise StorageError(f"conversation {question.conversation_id} kept changing")

    def get_question(self, conversation_id: str, question_id: int) -> QuestionRecord | None:
        item = self._table.get(f"CONVERSATION#{conversation_id}", _question_sk(question_id))
        return QuestionRecord.model_validate_json(text(item, "body")) if item else None

    def select_version(self, conversation_id: str, question_id: int) -> ConversationRecord:
        def select(
            conversation: ConversationRecord, questions: list[QuestionRecord]
        ) -> ConversationRecord:
            version = next((q for q in questions if q.id == question_id), None)
            if version is None:
                raise NotFound(f"question {question_id} in conversation {conversation_id}")
            selected = {**conversation.selected, version.turn_id: question_id}
            return conversation.model_copy(update={"selected": selected})

        return self._update(conversation_id, select)

    def _load(self, conversation_id: str) -> tuple[ConversationRecord, list[QuestionRecord]]:
        conversation, questions, _ = self._read(conversation_id)
        return conversation, questions

    def _read(self, conversation_id: str) -> tuple[ConversationRecord, list[QuestionRecord], int]:
        items = self._table.query(f"CONVERSATION#{conversation_id}")
        head = next((i for i in items if text(i, "sk") == "CONVERSATION"), None)
        if head is None:
            raise NotFound(f"conversation {conversation_id}")
        questions = [
            QuestionRecord.model_validate_json(text(i, "body"))
            for i in items
            if text(i, "sk").startswith("QUESTION#")
        ]
        conversation = ConversationRecord.model_validate_json(text(head, "body"))
        return conversation, sorted(questions, key=lambda q: q.seq), number(head, "revision") or 0

    def _list(
        self, user_id: str, count: int, before: tuple[int, str] | None
    ) -> list[ConversationRecord]:
        condition = "gsi1pk = :pk"
        values = {":pk": s(_listing_pk(user_id))}
        if before is not None:
            condition += " AND gsi1sk < :before"
            values[":before"] = s(listing_key(*before))
        request: dict[str, Any] = {
            "TableName": self._table.name,
            "IndexName": "gsi1",
            "KeyConditionExpression": condition,
            "ExpressionAttributeValues": values,
            "ScanIndexForward": False,
            "Limit": count,
        }
        found: list[ConversationRecord] = []
        while len(found) < count:
            reply = self._table.call("query", **request)
            found += [
                ConversationRecord.model_validate_json(text(i, "body")) for i in reply["Items"]
            ]
            if "LastEvaluatedKey" not in reply:
                break
            request["ExclusiveStartKey"] = reply["LastEvaluatedKey"]
            request["Limit"] = count - len(found)
        return found[:count]

    def _update(
        self,
        conversation_id: str,
        change: Callable[[ConversationRecord, list[QuestionRecord]], ConversationRecord],
    ) -> ConversationRecord:
        for _ in range(_CONFLICT_RETRIES):
            conversation, questions, revision = self._read(conversation_id)
            changed = change(conversation, questions).model_copy(
                update={"updated": self._table.now()}
            )
            try:
                self._table.call("put_item", **self._conversation_put(changed, revision))
            except ConditionFailed:
                continue
            return changed
        raise StorageError(f"conversation {conversation_id} kept changing")

    def _conversation_put(self, conversation: ConversationRecord, revision: int) -> dict[str, Any]:
        """The write of the next revision, on condition that ``revision`` is still current."""
        return {
            "TableName": self._table.name,
            "Item": _conversation_item(conversation, revision + 1),
            "ConditionExpression": "revision = :revision",
            "ExpressionAttributeValues": {":revision": n(revision)},
        }


def _conversation_item(conversation: ConversationRecord, revision: int) -> Item:
    return {
        **key(f"CONVERSATION#{conversation.id}", "CONVERSATION"),
        "gsi1pk": s(_listing_pk(conversation.user_id)),
        "gsi1sk": s(listing_key(conversation.updated, conversation.id)),
        "revision": n(revision),
        "body": s(conversation.model_dump_json()),
    }


def _question_item(question: QuestionRecord) -> Item:
    return {
        **key(f"CONVERSATION#{question.conversation_id}", _question_sk(question.id)),
        "body": s(question.model_dump_json()),
    }


def _listing_pk(user_id: str) -> str:
    return f"USER#{user_id}#CONVERSATIONS"


def _question_sk(question_id: int) -> str:
    return f"QUESTION#{question_id:020d}"
