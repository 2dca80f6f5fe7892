"""A keyed mutation, run once whatever the retries (SPEC section 9).

The key's record is looked up first: a live record answers (a replay, or 422 for another
fingerprint), and nothing runs. A replay is an operation all the same: only a principal
with the roles a mutation needs now (`writer`) reads a record, so without them the
operation runs afresh and is refused (FORBIDDEN), writing nothing; and it goes through the
schema's checks and budget first (`ReplayHold`), so it is charged the operation's cost and
a principal over budget gets 429, not the record. Otherwise the operation runs with its
writes staged (`schema/writes.py`); when its answer may be recorded, the writes and the
record commit in one transaction, the record's Put conditioned on the key being absent or
expired. Two copies racing both run, but only one transaction commits: the other finds the
record and replays it. So there is no window in which an effect exists without its record.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any, Protocol

import orjson

from gateway.idempotency.keys import (
    IdempotencyKeyRequired,
    IdempotencyKeyReused,
    KeyedOperation,
    extension_key,
    fingerprint,
)
from gateway.settings.requests import RequestSettings
from loaders.dynamodb import TransactionCanceled
from loaders.dynamodb_errors import TokenReused
from loaders.errors import DynamoDBUnavailable, GatewayError
from loaders.idempotency import (
    MAX_STORED_ANSWER_BYTES,
    AnswerTooLarge,
    Recorded,
    new_record,
    read_record,
)
from loaders.transactions import WriteConflict
from schema.context import Context, Replay
from schema.errors import QueryTooComplex
from schema.principal import Principal
from schema.writes import MAX_ATTEMPTS, WriteSession

#: What `gateway_idempotency_total{outcome}` counts.
OUTCOMES = ("first", "replayed", "reused", "refused", "required")
NOT_WRITTEN = (
    "Not written: another field of this keyed operation was refused, and a keyed "
    "operation is written whole or not at all"
)


class SentOperation(Protocol):
    """An operation as either transport received it (its key is in `extensions`)."""

    @property
    def operation_name(self) -> str | None: ...

    @property
    def variables(self) -> Mapping[str, Any] | None: ...

    @property
    def extensions(self) -> Mapping[str, Any] | None: ...


@dataclass(slots=True)
class Answer:
    """An operation's answer as sent: its JSON payload and HTTP status."""

    payload: dict[str, Any]
    status: int
    replayed: bool = False
    #: Whatever the transport keeps beside the payload (its ExecutionResult).
    source: Any = field(default=None)


def error_answer(error: GatewayError, status: int) -> Answer:
    shown = {"message": error.message, "extensions": error.graphql_extensions()}
    return Answer({"errors": [shown]}, status, source=error)


class Idempotency:
    """Keys honoured for the process: `required` refuses unkeyed mutations; a record lives
    `lifetime`; `count` is told each outcome (`OUTCOMES`)."""

    def __init__(
        self,
        *,
        required: bool,
        lifetime: timedelta,
        max_tokens: int,
        count: Callable[[str], None] | None = None,
    ) -> None:
        self.required = required
        self.lifetime = lifetime
        self.max_tokens = max_tokens
        self._count = count or (lambda _: None)

    @classmethod
    def from_settings(
        cls, settings: RequestSettings, count: Callable[[str], None] | None = None
    ) -> Idempotency:
        return cls(
            required=settings.idempotency == "required",
            lifetime=timedelta(seconds=settings.idempotency_ttl_seconds),
            max_tokens=settings.max_query_tokens,
            count=count,
        )

    def keyed(
        self, operation: SentOperation, text: str, principal: Principal, *, is_mutation: bool
    ) -> KeyedOperation | None:
        """The operation's key and fingerprint (of `text`, the document it runs); None for
        a query (keys are ignored) or an unkeyed mutation. Raises InvalidIdempotencyKey, or
        IdempotencyKeyRequired."""
        if not is_mutation:
            return None
        key = extension_key(operation.extensions)
        if key is None:
            if self.required:
                self._count("required")
                raise IdempotencyKeyRequired()
            return None
        shown = fingerprint(text, operation.operation_name, operation.variables, self.max_tokens)
        return KeyedOperation(principal.sub, key, shown)

    async def run(
        self, context: Context, keyed: KeyedOperation, execute: Callable[[], Awaitable[Answer]]
    ) -> Answer:
        """The operation's answer: its first, recorded with its writes, or the recorded one."""
        unavailable = error_answer(DynamoDBUnavailable(), 503)
        for attempt in range(MAX_ATTEMPTS):
            try:
                found = await _record_for(context, keyed)
            except DynamoDBUnavailable:
                return unavailable
            if found is not None:
                # Past the first look, this operation ran and was charged already.
                refused = None if attempt else await self._admit_replay(context, execute)
                return refused or self._replay(found, keyed)
            session = WriteSession(context.dynamo, context.changes, keyed=True, attempt=attempt)
            context.writes = session
            try:
                answer = await execute()
            except BaseException:
                await session.close()
                raise
            finally:
                context.writes = None
            try:
                return await self._commit(context, keyed, session, answer)
            except (WriteConflict, TransactionCanceled, TokenReused):
                # A writer's condition failed (run again, deciding afresh), or another copy
                # committed first (the next look finds its record).
                continue
        return unavailable

    async def _admit_replay(
        self, context: Context, execute: Callable[[], Awaitable[Answer]]
    ) -> Answer | None:
        """The operation through the schema's checks and its charge, held before it runs
        (`ReplayHold`): None when admitted, else the refusal (429 over budget)."""
        replay = context.replay = Replay()
        # Should the hold not be installed, the operation's writes go nowhere.
        session = WriteSession(context.dynamo, context.changes, keyed=True, attempt=0)
        context.writes = session
        try:
            answer = await execute()
        finally:
            context.replay = None
            context.writes = None
            await session.close()
        if replay.held:
            return None
        if answer.payload.get("errors"):
            self._count("refused")
            return answer
        raise RuntimeError("a replay ran: its schema has no ReplayHold")

    async def _commit(
        self, context: Context, keyed: KeyedOperation, session: WriteSession, answer: Answer
    ) -> Answer:
        if answer.payload.get("errors") or answer.status != 200 or session.unrecordable:
            await session.close()
            self._count("refused")
            return _unwritten(answer, session)
        now = context.clock.now()
        shown = {
            name: answer.payload[name] for name in ("data", "errors") if name in answer.payload
        }
        record = new_record(
            sub=keyed.sub,
            key=keyed.key,
            fingerprint=keyed.fingerprint,
            status=answer.status,
            answer=orjson.dumps(shown),
            now=now,
            lifetime=self.lifetime,
        )
        try:
            entry = record.staged(now)
        except AnswerTooLarge as large:
            await session.close()
            self._count("refused")
            too_large = QueryTooComplex("answer bytes to keep", MAX_STORED_ANSWER_BYTES, large.size)
            return error_answer(too_large, 400)
        try:
            await session.commit_with(entry, token=record.client_request_token())
        except DynamoDBUnavailable:
            # The commit may have applied with its answer lost: the record says.
            return await self._after_lost_commit(context, keyed, record, answer)
        self._count("first")
        _refresh_cost(answer, context)
        return answer

    async def _after_lost_commit(
        self, context: Context, keyed: KeyedOperation, mine: Recorded, answer: Answer
    ) -> Answer:
        try:
            found = await read_record(context.dynamo, keyed.sub, keyed.key, context.clock.now())
        except DynamoDBUnavailable:
            return error_answer(DynamoDBUnavailable(), 503)
        if found is None:
            self._count("refused")
            return error_answer(DynamoDBUnavailable(), 503)
        if found.created_at == mine.created_at and found.fingerprint == mine.fingerprint:
            self._count("first")
            return answer
        return self._replay(found, keyed)

    def _replay(self, found: Recorded, keyed: KeyedOperation) -> Answer:
        if found.fingerprint != keyed.fingerprint:
            self._count("reused")
            return error_answer(IdempotencyKeyReused(), 422)
        self._count("replayed")
        return Answer(orjson.loads(found.answer), found.status, replayed=True)


async def _record_for(context: Context, keyed: KeyedOperation) -> Recorded | None:
    """The key's live record, looked up only for a principal who may call mutations now:
    anyone else runs the operation afresh, to be refused as a fresh key is."""
    if not context.principal.may_write:
        return None
    return await read_record(context.dynamo, keyed.sub, keyed.key, context.clock.now())


def _unwritten(answer: Answer, session: WriteSession) -> Answer:
    """A keyed operation not recorded writes nothing: the fields that staged writes are
    null, each with an error saying so."""
    staged = [name for name, writes in session.staged.items() if writes.writes_items]
    data = answer.payload.get("data")
    if not staged or not isinstance(data, dict):
        return answer
    errors = list(answer.payload.get("errors") or [])
    for name in staged:
        data[name] = None
        errors.append(
            {"message": NOT_WRITTEN, "path": [name], "extensions": {"code": "BAD_USER_INPUT"}}
        )
    answer.payload["errors"] = errors
    return answer


def _refresh_cost(answer: Answer, context: Context) -> None:
    """`extensions.cost` counts the commit and the look-up made after the operation."""
    extensions = answer.payload.get("extensions")
    if isinstance(extensions, dict) and "cost" in extensions:
        extensions["cost"] = context.calls.summary()
