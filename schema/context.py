"""The per-request context: what every resolver may use."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import TypeAlias

import strawberry

from loaders.cache import CacheReader, CoherentCache, WritePublisher
from loaders.call_log import CallLog
from loaders.collections import Collections
from loaders.dynamodb import Dynamo
from loaders.expiry import Expiries
from loaders.lock import LockClient
from loaders.point_reads import PointReadLoader
from loaders.queries import QueryLoader
from loaders.user_reads import UserReads
from schema.clock import Clock
from schema.principal import Principal
from schema.writes import WriteSession


@dataclass
class Context:
    dynamo: Dynamo
    reads: UserReads
    principal: Principal
    clock: Clock
    #: The request's instant: every read rule and every write of the request uses it.
    now: datetime
    request_id: str = ""
    extensions: dict[str, object] = field(default_factory=dict)
    #: The request's DynamoDB calls (always recorded, for the metrics).
    calls: CallLog = field(default_factory=CallLog)
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
    consistent: bool = False,
    cache: CoherentCache | None = None,
    changes: WritePublisher | None = None,
) -> Context:
    """A fresh context with its own loaders: nothing is cached across requests but what
    the coherent cache (`cache`, the process's) holds.

    `consistent`: every read is strongly consistent (a subscription's re-read, which must
    see the write that woke it); it refreshes the cache instead of reading from it."""
    now = clock.now()
    collections = Collections()
    calls = CallLog(cached_reads=None if cache is None else 0)
    reader = None if cache is None else CacheReader(cache, now, calls, consistent=consistent)
    # A re-read is read again when the first item it read expires.
    expiries = Expiries() if consistent else None
    reads = UserReads(
        PointReadLoader(
            dynamo, now, collections, consistent=consistent, cache=reader, expiries=expiries
        ),
        QueryLoader(
            dynamo, now, collections, consistent=consistent, cache=reader, expiries=expiries
        ),
        now,
        expiries,
    )
    return Context(
        dynamo=dynamo,
        reads=reads,
        principal=principal,
        clock=clock,
        now=now,
        request_id=request_id,
        cost_requested=cost_requested,
        locks=locks,
        calls=calls,
        changes=changes or WritePublisher(cache),
    )


Info: TypeAlias = strawberry.Info[Context, None]
