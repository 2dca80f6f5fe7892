"""The per-request context: what every resolver may use."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, Protocol, TypeAlias

import strawberry

from loaders.cache import CacheReader, CoherentCache, WritePublisher
from loaders.call_log import CallLog
from loaders.collections import Collections
from loaders.dynamodb import Dynamo
from loaders.expiry import Expiries
from loaders.lock import LockClient
from loaders.point_reads import PointReadLoader
from loaders.queries import QueryLoader
from loaders.request_scope import RequestScope
from loaders.user_reads import UserReads
from schema.clock import Clock
from schema.principal import Principal
from schema.writes import WriteSession

__all__ = ["BatchArrival", "Context", "Info", "LiveSubscriptions", "Replay", "build_context"]


class LiveSubscriptions(Protocol):
    """What a socket's subscription operation offers the resolvers of `Subscription`
    (`schema.live.LiveSession`, made by the WebSocket transport); HTTP has none."""

    def subscribe(
        self, *, principal: Principal, user_ids: list[str], initial: bool, cost: int
    ) -> AsyncIterator[Any]: ...


class BatchArrival(Protocol):
    """A batched operation's place at its run's start gate (gateway/http/batch.py)."""

    async def arrive_and_wait(self) -> None: ...


@dataclass(slots=True)
class Replay:
    """A replay's passage through the schema: `held` once the operation was admitted
    (limits passed, budget charged) and its execution held back."""

    held: bool = False


@dataclass
class Context:
    #: The process's `Dynamo` bound to `scope` (`Dynamo.bound`).
    dynamo: Dynamo
    reads: UserReads
    principal: Principal
    clock: Clock
    #: The request's instant, deadline and call log.
    scope: RequestScope
    request_id: str = ""
    #: The client asked for `extensions.cost` (header `X-Insight-Cost: 1`).
    cost_requested: bool = False
    #: The process's `locks` client (one owner name, shared sightings), from the lifespan.
    locks: LockClient | None = None
    #: Where the request's own writes go once made (the cache, the change feed).
    changes: WritePublisher = field(default_factory=WritePublisher)
    #: A subscription's re-read (schema.live): one read answers many subscribers, each
    #: charged to its own budget by the hub, so the operation itself charges no one.
    reread: bool = False
    #: The operation's writes: committed per mutation field, or with the key's record.
    writes: WriteSession | None = None
    #: A keyed mutation answered from its key's record: checked and charged as the
    #: operation it replays, but not run (gateway/idempotency).
    replay: Replay | None = None
    #: A socket's subscription operation (None over HTTP and for a re-read).
    live: LiveSubscriptions | None = None
    #: A batched query's place at its run's start gate (each operation of a batch has its
    #: own copy of the batch's Context, `for_operation`); None outside a batch.
    arrival: BatchArrival | None = None

    def for_operation(self, arrival: BatchArrival | None) -> Context:
        """This Context for one operation of a batch: the same scope, loaders and writes'
        destination, its own place at the start gate and its own writes."""
        return replace(self, arrival=arrival, writes=None)

    @property
    def now(self) -> datetime:
        """The request's instant: every read rule and every write of the request uses it."""
        return self.scope.now

    @property
    def calls(self) -> CallLog:
        """The request's DynamoDB calls (always recorded, for the metrics)."""
        return self.scope.calls

    def write_session(self) -> WriteSession:
        """The operation's writes (unkeyed unless the transport made them keyed)."""
        if self.writes is None:
            self.writes = WriteSession(self.dynamo, self.changes)
        return self.writes


def build_context(
    *,
    dynamo: Dynamo,
    principal: Principal,
    clock: Clock,
    request_id: str = "",
    cost_requested: bool = False,
    locks: LockClient | None = None,
    cache: CoherentCache | None = None,
    changes: WritePublisher | None = None,
    deadline_seconds: float | None = None,
    reread: bool = False,
    live: LiveSubscriptions | None = None,
) -> Context:
    """A fresh context with its own request scope and loaders: nothing is cached across
    requests but what the coherent cache (`cache`, the process's) holds. Every DynamoDB
    call of the request goes through `dynamo` bound to the scope, which keeps it to the
    deadline (`deadline_seconds` from now; None: none) and records it in the call log.

    `reread`: a subscription's re-read: every read strongly consistent, since it must see
    the write that woke it (it refreshes the cache instead of reading from it), and charged
    to no one: the hub charges each subscriber."""
    calls = CallLog(cached_reads=None if cache is None else 0)
    scope = RequestScope.starting(clock.now(), seconds=deadline_seconds, calls=calls)
    now = scope.now
    dynamo = dynamo.bound(scope)
    collections = Collections()
    reader = None if cache is None else CacheReader(cache, now, calls, consistent=reread)
    # A re-read is read again when the first item it read expires.
    expiries = Expiries() if reread else None
    reads = UserReads(
        PointReadLoader(
            dynamo, now, collections, consistent=reread, cache=reader, expiries=expiries
        ),
        QueryLoader(dynamo, now, collections, consistent=reread, cache=reader, expiries=expiries),
        now,
        expiries,
    )
    return Context(
        dynamo=dynamo,
        reads=reads,
        principal=principal,
        clock=clock,
        scope=scope,
        request_id=request_id,
        cost_requested=cost_requested,
        locks=locks,
        changes=changes or WritePublisher(cache),
        reread=reread,
        live=live,
    )


Info: TypeAlias = strawberry.Info[Context, None]
