"""One native chat question, from request to stored turn, exactly once per ``request_id``.

:meth:`ChatService.prepare` and :meth:`ChatService.attempt` do everything that may still
refuse the request with an HTTP error (conversation, scope, the ``request_id`` claim, the
cache, the quota); ``attempt`` returns a :class:`ChatRun`, whose :meth:`ChatRun.events`
yields the answer's tokens and its ``done`` payload, or None while another request answers
the same ``request_id``: the caller waits (without holding a thread) and attempts again.
Nothing is written until the answer is complete: the turn, the conversation's counter and
the completed ``request_id`` are then stored in one transaction. A run that ends
any other way (its client gone, a failure) releases its claim and refunds its quota, so that
a retry generates again.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import TYPE_CHECKING

from groundwork.answer.question import check_length
from groundwork.auth.access import Access, restriction_fingerprint
from groundwork.chat.answering import Finish
from groundwork.chat.cache_key import cache_key, collection_fingerprint
from groundwork.chat.export import export_answer
from groundwork.chat.history import History, message_history, stored_history
from groundwork.chat.language import answer_language
from groundwork.chat.request_digest import difference, request_digest
from groundwork.chat.scope import effective_scope, resolve_scope
from groundwork.domain.citations import Citation, GroundingSupport
from groundwork.errors import ApiError, unavailable
from groundwork.observability.entry import record_answer
from groundwork.storage.errors import AlreadyExists, NotOwner, QuotaExceeded, StorageUnavailable
from groundwork.storage.quotas import Charge
from groundwork.storage.records import (
    ClaimOutcome,
    Completion,
    QuestionRecord,
    new_question_id,
)

if TYPE_CHECKING:
    from collections.abc import Generator, Iterator

    from pydantic import JsonValue

    from groundwork.chat.answering import Answerer
    from groundwork.chat.request import ChatRequest, ChatScope, Quality
    from groundwork.retrieval.base import SearchFilter
    from groundwork.storage.base import Storage
    from groundwork.storage.records import ConversationRecord, UserRecord
    from groundwork.storage.stores import Stores

logger = logging.getLogger(__name__)

#: Credits a generated answer costs, by quality; an answer from the cache costs none.
CREDITS = {"fast": 1, "precise": 2}
#: What the answer pipeline measured about an answer, kept with the turn and in the cache and
#: sent in ``done`` (null for an answer saved before it was measured).
MEASURES = ("answerability", "confidence", "refusal_reason")


@dataclass(frozen=True)
class ChatConfig:
    lease_seconds: int = 30
    wait_seconds: float = 60.0
    cache_ttl_seconds: int = 86400
    retention_seconds: int = 86400
    #: First pause between two claims of a request that another worker is answering.
    poll_seconds: float = 0.05
    #: The longest pause between two claims.
    max_poll_seconds: float = 0.5
    question_max_chars: int = 4000


@dataclass(frozen=True)
class Token:
    text: str


@dataclass(frozen=True)
class Done:
    payload: dict[str, JsonValue]


ChatEvent = Token | Done


class ChatRun(ABC):
    """What a started request sends: a replay of a saved answer, or a generation."""

    @abstractmethod
    def events(self) -> Generator[ChatEvent, None, None]: ...


@dataclass
class Replay(ChatRun):
    """A saved answer sent again: one token with the whole text, one ``done``."""

    payload: dict[str, JsonValue]

    def events(self) -> Generator[ChatEvent, None, None]:
        text = self.payload.get("text")
        yield Token(text if isinstance(text, str) else "")
        yield Done(self.payload | {"replayed": True})


@dataclass
class _Plan:
    """Everything decided before answering."""

    user: UserRecord
    body: ChatRequest
    question: str
    conversation_id: str
    conversation: ConversationRecord | None
    where: SearchFilter
    saved_scope: JsonValue
    quality: Quality
    language: str | None
    history: History
    key: str | None
    owner: str
    credits: int
    cached: dict[str, JsonValue] | None = None


@dataclass(frozen=True)
class _Answered:
    """A complete answer, to store: what ``done`` reports of it."""

    text: str
    citations: list[Citation]
    grounding_supports: list[GroundingSupport]
    support: float | None
    language: str | None
    #: The answer's :data:`MEASURES` (none for an answer not measured).
    measures: dict[str, JsonValue]


@dataclass
class Pending:
    """A request checked and scoped, not yet claimed; :meth:`ChatService.attempt` claims it."""

    user: UserRecord
    body: ChatRequest
    question: str
    conversation: ConversationRecord | None
    history: History
    scope: ChatScope | None
    save_scope: bool
    where: SearchFilter
    quality: Quality
    owner: str
    #: When a duplicate stops waiting for the request's first attempt (monotonic clock).
    deadline: float


@dataclass
class Generation(ChatRun):
    """An answer to generate; its lease's heartbeat runs from the claim on."""

    service: ChatService
    plan: _Plan
    heartbeat: _Heartbeat

    def events(self) -> Generator[ChatEvent, None, None]:
        plan, finished, heartbeat = self.plan, False, self.heartbeat
        try:
            supports: list[GroundingSupport] = []
            if plan.cached is not None:
                text = str(plan.cached.get("text") or "")
                citations = _citations(plan.cached.get("citations"))
                supports = _supports(plan.cached.get("grounding_supports"))
                support = _number(plan.cached.get("support_score"))
                language = plan.cached.get("language")
                measures = {key: plan.cached.get(key) for key in MEASURES}
                yield Token(text)
            else:
                text, citations, support, language = "", [], None, None
                measures = {}
                stream = self.service.answerer.stream(
                    plan.question,
                    plan.history,
                    plan.where,
                    language=plan.language,
                    quality=plan.quality,
                    follow_up=plan.body.version_of is None,
                )
                try:
                    for event in stream:
                        if heartbeat.lost:
                            raise _superseded()
                        if isinstance(event, Finish):
                            citations, support = event.citations, event.support_score
                            supports = event.grounding_supports
                            language = event.language
                            measures = {
                                "answerability": event.answerability,
                                "confidence": event.confidence,
                                "refusal_reason": event.refusal_reason,
                            }
                        elif event.text:
                            text += event.text
                            yield Token(event.text)
                finally:
                    stream.close()
            written = language if isinstance(language, str) else None
            payload = self.service.store(
                plan, _Answered(text, citations, supports, support, written, measures)
            )
            finished = True
            yield Done(payload)
        finally:
            heartbeat.stop()
            if not finished:
                self.service.abandon(plan)


class _Heartbeat:
    """Renews the request's lease every third of it while the answer is generated.

    A thread rather than a check between tokens: a model may take longer than a lease to
    write one token (or to start), and the lease must then still hold. When the process
    dies, so does the thread, and the lease runs out for a retry to take over.
    """

    def __init__(self, service: ChatService, plan: _Plan) -> None:
        self._service = service
        self._plan = plan
        self._stopped = threading.Event()
        self._thread: threading.Thread | None = None
        self.lost = False

    def start(self) -> None:
        if self._plan.body.request_id is None or self._thread is not None:
            return
        self._thread = threading.Thread(target=self._run, name="chat-lease", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stopped.set()
        if self._thread is not None:
            self._thread.join()

    def _run(self) -> None:
        interval = self._service.config.lease_seconds / 3
        while not self._stopped.wait(interval):
            try:
                self._service.renew(self._plan)
            except ApiError:
                self.lost = True
                return
            except Exception:
                # The next beat may get through; the lease outlasts two missed ones.
                logger.exception("lease renewal failed")


class ChatService:
    def __init__(
        self,
        stores: Stores,
        storage: Storage,
        answerer: Answerer,
        config: ChatConfig | None = None,
    ) -> None:
        self.stores = stores
        self.storage = storage
        self.answerer = answerer
        self.config = config or ChatConfig()

    # -- before answering ---------------------------------------------------------------

    def prepare(self, user: UserRecord, body: ChatRequest) -> Pending:
        """Check and scope the request; nothing is claimed or written yet."""
        check_length(body.question(), self.config.question_max_chars)
        try:
            access = Access.of(self.stores.accounts, user.id)
            conversation = self.conversation_of(user, body.conversation_id)
            history = self._history(body, conversation, access)
            scope, save = effective_scope(
                body.scope,
                sent="scope" in body.model_fields_set,
                saved=conversation.scope if conversation is not None else None,
            )
            where = resolve_scope(
                self.stores.accounts,
                self.storage,
                self.answerer.retriever,
                access,
                collection=body.collection,
                scope=scope,
                tags=body.tags,
                card_ids=body.card_ids,
            )
        except StorageUnavailable as error:
            raise unavailable(error) from error
        return Pending(
            user=user,
            body=body,
            question=body.question(),
            conversation=conversation,
            history=history,
            scope=scope,
            save_scope=save,
            where=where,
            quality=self._quality(body, conversation),
            owner=uuid.uuid4().hex,
            deadline=time.monotonic() + self.config.wait_seconds,
        )

    def attempt(self, pending: Pending) -> ChatRun | None:
        """The run of a prepared request, or None while another request answers its
        ``request_id``: the caller pauses (:meth:`pauses`) and attempts again. That
        other request either completes (then its answer is replayed), or gives up (its
        client left) or dies (its lease runs out), and a later attempt answers."""
        try:
            return self._attempt(pending)
        except StorageUnavailable as error:
            raise unavailable(error) from error

    def pauses(self) -> Iterator[float]:
        """The pauses between two attempts: doubling from ``poll_seconds``, capped."""
        pause = self.config.poll_seconds
        while True:
            yield pause
            pause = min(pause * 2, self.config.max_poll_seconds)

    def _attempt(self, pending: Pending) -> ChatRun | None:
        body = pending.body
        if body.request_id is not None:
            claimed, replay = self._claim(pending)
            if replay is not None:
                return replay
            if not claimed:
                return None
        scope = pending.scope
        plan = _Plan(
            user=pending.user,
            body=body,
            question=pending.question,
            conversation_id=body.conversation_id or f"conv_{uuid.uuid4().hex}",
            conversation=pending.conversation,
            where=pending.where,
            saved_scope=(
                scope.model_dump(mode="json", exclude_none=True) if scope is not None else None
            ),
            quality=pending.quality,
            language=answer_language(body.language, pending.question),
            history=pending.history,
            key=None,
            owner=pending.owner,
            credits=CREDITS[pending.quality],
        )
        # From the claim on, the lease is renewed: whatever comes before the first token
        # (the cache, the quota, a slow model's start) cannot let a duplicate take over.
        heartbeat = _Heartbeat(self, plan)
        heartbeat.start()
        try:
            self._consult_cache(plan)
            self._consume(plan)
        except BaseException:
            heartbeat.stop()
            self._release(plan)
            raise
        # Saved only once the question is accepted: a refused request changes nothing.
        if plan.conversation is not None and pending.save_scope:
            plan.conversation = self.stores.conversations.set_scope(
                plan.conversation.id, plan.saved_scope
            )
        return Generation(self, plan, heartbeat)

    def conversation_of(
        self, user: UserRecord, conversation_id: str | None
    ) -> ConversationRecord | None:
        """The user's conversation; None when it is new. Another user's is not found."""
        if conversation_id is None:
            return None
        conversation = self.stores.conversations.get_conversation(conversation_id)
        if conversation is not None and conversation.user_id != user.id:
            raise ApiError(
                404,
                "conversations.not_found",
                f"No conversation `{conversation_id}`.",
                param="conversation_id",
            )
        return conversation

    def _history(
        self, body: ChatRequest, conversation: ConversationRecord | None, access: Access
    ) -> History:
        conversations = self.stores.conversations
        if body.version_of is not None:
            if body.conversation_id is None:
                raise ApiError(
                    400,
                    "version_of.requires_conversation",
                    "`version_of` needs the `conversation_id` of the question.",
                    param="version_of",
                )
            target = (
                conversations.get_question(conversation.id, body.version_of)
                if conversation is not None
                else None
            )
            if target is None:
                raise ApiError(
                    404,
                    "questions.not_found",
                    f"No question {body.version_of} in this conversation.",
                    param="version_of",
                )
            # A new version follows what the old one followed.
            branch = conversations.branch(target.conversation_id, target.id)[:-1]
            return stored_history(branch, access)
        if conversation is not None and conversation.questions:
            selected = [turn.selected for turn in conversations.feed(conversation.id)]
            return stored_history(selected, access)
        return message_history(body.messages)

    @staticmethod
    def _quality(body: ChatRequest, conversation: ConversationRecord | None) -> Quality:
        """The request's quality; without the field, the conversation's setting."""
        if "quality" not in body.model_fields_set and conversation is not None:
            saved = conversation.settings.get("quality")
            if saved in ("fast", "precise"):
                return "fast" if saved == "fast" else "precise"
        return body.quality

    def _claim(self, pending: Pending) -> tuple[bool, Replay | None]:
        """One claim of the request: (True, None) once this request owns it, (False, a
        Replay) when its answer is saved, (False, None) while another request answers it."""
        body = pending.body
        assert body.request_id is not None
        digest = request_digest(body, visible_cards=restriction_fingerprint(pending.where))
        claim = self.stores.idempotency.claim(
            pending.user.id,
            body.request_id,
            pending.owner,
            lease_seconds=self.config.lease_seconds,
            payload_hash=digest,
        )
        record = claim.record
        if claim.outcome is not ClaimOutcome.CLAIMED:
            differs = difference(record.payload_hash, digest)
            if differs == "question":
                raise ApiError(
                    409,
                    "requests.conflict",
                    "This `request_id` was used for another question.",
                    param="request_id",
                )
            if differs == "options":
                raise ApiError(
                    409,
                    "requests.mismatch",
                    "This `request_id` was used for the same question with other options "
                    "(collection, scope, quality, language, export, history…), or before "
                    "the part of a collection you may see changed: send the request as it "
                    "was, or use a new `request_id`.",
                    param="request_id",
                )
        if claim.outcome is ClaimOutcome.CLAIMED:
            return True, None
        if claim.outcome is ClaimOutcome.COMPLETE and record.response is not None:
            return False, Replay(record.response)
        if time.monotonic() >= pending.deadline:
            raise ApiError(
                409,
                "requests.in_progress",
                "This `request_id` is still being answered; retry later.",
                param="request_id",
            )
        return False, None

    def _consult_cache(self, plan: _Plan) -> None:
        if self.config.cache_ttl_seconds <= 0:
            return
        fingerprints = {
            name: collection_fingerprint(self.storage, self.answerer.retriever, name)
            for name in plan.where.collections
        }
        plan.key = cache_key(
            question=plan.question,
            where=plan.where,
            language=plan.language,
            quality=plan.quality,
            history=plan.history,
            fingerprints=fingerprints,
        )
        if not plan.body.bypass_cache:
            entry = self.stores.cache.get(plan.key)
            if entry is not None:
                plan.cached, plan.credits = entry.response, 0

    def _consume(self, plan: _Plan) -> None:
        try:
            self.stores.quotas.consume(
                plan.user.id, questions=1, credits=plan.credits, charge=self._charge(plan)
            )
        except QuotaExceeded as error:
            code = f"quota.{error.reason}_exhausted"
            raise ApiError(
                429, code, f"Your {error.reason} are exhausted.", type_="insufficient_quota"
            ) from error

    # -- while answering ----------------------------------------------------------------

    def renew(self, plan: _Plan) -> None:
        if plan.body.request_id is None:
            return
        try:
            self.stores.idempotency.renew(
                plan.user.id,
                plan.body.request_id,
                plan.owner,
                lease_seconds=self.config.lease_seconds,
            )
        except NotOwner as error:
            raise _superseded() from error

    def abandon(self, plan: _Plan) -> None:
        """Give back what an unfinished run took, so a retry starts over."""
        try:
            self.stores.quotas.refund(
                plan.user.id, questions=1, credits=plan.credits, charge=self._charge(plan)
            )
        except Exception:
            logger.exception("refund failed for user %s", plan.user.id)
        self._release(plan)

    def _charge(self, plan: _Plan) -> Charge | None:
        """A question with a ``request_id`` is charged once, even when a retry takes over the
        request from a run that died mid-answer."""
        if plan.body.request_id is None:
            return None
        return Charge(plan.body.request_id, plan.owner, self.config.retention_seconds)

    def _release(self, plan: _Plan) -> None:
        if plan.body.request_id is None:
            return
        try:
            self.stores.idempotency.release(plan.user.id, plan.body.request_id, plan.owner)
        except Exception:
            # The lease runs out instead; a retry waits for it.
            logger.exception("release failed for request %s", plan.body.request_id)

    # -- after answering ----------------------------------------------------------------

    def store(self, plan: _Plan, answer: _Answered) -> dict[str, JsonValue]:
        """Write the turn (and complete the request) in one transaction; the done payload."""
        body, conversations = plan.body, self.stores.conversations
        language = answer.language
        try:
            conversation = plan.conversation or self._create_conversation(plan)
            record = QuestionRecord(
                id=new_question_id(),
                conversation_id=conversation.id,
                question=plan.question,
                answer_id=f"ans_{uuid.uuid4().hex}",
                answer=answer.text,
                citations=answer.citations,
                grounding_supports=answer.grounding_supports,
                support=answer.support,
                quality=plan.quality,
                cached=plan.cached is not None,
                details={
                    "origin": body.origin,
                    "tools": body.tools,
                    "language": language,
                    "requested_language": plan.language,
                    "request_id": body.request_id,
                    "scope": plan.where.model_dump(mode="json", exclude_none=True),
                    **{key: _measure(key, answer.measures.get(key)) for key in MEASURES},
                },
                created=int(time.time()),
            )
            payload = _done_payload(plan, record, language)
            completion = (
                Completion(
                    user_id=plan.user.id,
                    request_id=body.request_id,
                    owner=plan.owner,
                    response=payload,
                    retention_seconds=self.config.retention_seconds,
                )
                if body.request_id is not None
                else None
            )
            conversations.add_question(record, version_of=body.version_of, completion=completion)
        except NotOwner as error:
            raise _superseded() from error
        except StorageUnavailable as error:
            raise unavailable(error) from error
        self._after_store(plan, conversation, payload)
        record_answer(cached=record.cached, support_score=record.support)
        return payload

    def _create_conversation(self, plan: _Plan) -> ConversationRecord:
        try:
            return self.stores.conversations.create_conversation(
                plan.conversation_id,
                plan.user.id,
                scope=plan.saved_scope,
                settings={"quality": plan.quality},
            )
        except AlreadyExists:
            # Created meanwhile by the same user's other request, or taken by another user.
            conversation = self.conversation_of(plan.user, plan.conversation_id)
            assert conversation is not None
            return conversation

    def _after_store(
        self, plan: _Plan, conversation: ConversationRecord, payload: dict[str, JsonValue]
    ) -> None:
        """What may fail without losing the answer: the cache and the conversation's settings."""
        try:
            if plan.key is not None and plan.cached is None:
                cached: dict[str, JsonValue] = {
                    "text": payload["text"],
                    "citations": payload["citations"],
                    "grounding_supports": payload["grounding_supports"],
                    "support_score": payload["support_score"],
                    "language": payload["language"],
                    **{key: payload[key] for key in MEASURES},
                }
                self.stores.cache.put(plan.key, cached, self.config.cache_ttl_seconds)
            explicit = "quality" in plan.body.model_fields_set
            # A version's quality does not change the conversation's settings.
            if (
                plan.conversation is not None
                and plan.body.version_of is None
                and explicit
                and conversation.settings.get("quality") != plan.quality
            ):
                self.stores.conversations.set_settings(
                    conversation.id, conversation.settings | {"quality": plan.quality}
                )
        except Exception:
            logger.exception("post-answer update failed for %s", plan.conversation_id)


def _done_payload(
    plan: _Plan, record: QuestionRecord, language: str | None
) -> dict[str, JsonValue]:
    citations: list[JsonValue] = [c.model_dump(mode="json") for c in record.citations]
    supports: list[JsonValue] = [s.model_dump(mode="json") for s in record.grounding_supports]
    payload: dict[str, JsonValue] = {
        "question_id": record.id,
        "answer_id": record.answer_id,
        "conversation_id": record.conversation_id,
        "request_id": plan.body.request_id,
        "text": record.answer,
        "citations": citations,
        "grounding_supports": supports,
        "support_score": record.support,
        **{key: record.details.get(key) for key in MEASURES},
        "cached": record.cached,
        "language": language,
        "requested_language": plan.language,
        "quality": plan.quality,
    }
    if plan.body.export is not None:
        payload["export"] = {
            "format": plan.body.export,
            "content": export_answer(record.answer, record.citations, plan.body.export),
        }
    return payload


def _citations(value: JsonValue) -> list[Citation]:
    return [Citation.model_validate(c) for c in value] if isinstance(value, list) else []


def _supports(value: JsonValue) -> list[GroundingSupport]:
    """A cached answer's supports; none for an entry written before they were kept."""
    return [GroundingSupport.model_validate(s) for s in value] if isinstance(value, list) else []


def _number(value: JsonValue) -> float | None:
    return float(value) if isinstance(value, int | float) else None


def _measure(key: str, value: JsonValue) -> JsonValue:
    """A measure as stored: a number, or the refusal's reason code."""
    if key == "refusal_reason":
        return value if isinstance(value, str) else None
    return _number(value)


def _superseded() -> ApiError:
    return ApiError(
        409,
        "requests.superseded",
        "Another attempt of this `request_id` took over; its answer is the one kept.",
        param="request_id",
    )
