"""The live hub: subscriptions indexed by user id, woken by the change feed, each change
re-read once per group of identical subscriptions.

A group is (document, operation name, variables, read scope, user id): every subscriber in
it would see the same answer for that user, so one strongly consistent re-read (through
the request machinery: a fresh Context, the loaders, the access plan, the compiled
completion) answers them all. The read scope is the subscriber's read rule (`dashboard`,
any user; else its own user only), not the subscriber: 100 dashboards watching one user
with one document are one group.

Changes close together coalesce: a woken group waits `debounce` seconds, and never has
more than one re-read in flight; a change during a re-read makes one more after it, so
the last answer shows the latest committed state. Time alone changes some answers
(`payday` only on its UTC day, the months of `savingsMonths`, an item's TTL): every
group is also re-read at each UTC midnight, and just after the first item its last
re-read read expires.
"""

from __future__ import annotations

import asyncio
import contextvars
import json
import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

import strawberry
from strawberry.types.graphql import OperationType

from loaders import entities
from loaders.backoff import Backoff
from loaders.changes import Change, ShardPosition
from schema.clock import Clock
from schema.context import Context
from schema.live.charges import CoalescedCharge
from schema.live.mailbox import Payload
from schema.live.subscriber import (
    Charge,
    LiveObserver,
    NoObserver,
    RereadReason,
    Send,
    Subscriber,
    free,
)
from schema.principal import DASHBOARD, Principal
from schema.user import User

logger = logging.getLogger("gateway.subscriptions")

#: How long a woken group waits for more changes before its re-read.
DEBOUNCE_SECONDS = 0.05
#: A re-read that DynamoDB could not answer whole is tried again after about a second,
#: doubling up to 30 s, until one succeeds (its partial answer is sent meanwhile).
RETRY = Backoff(base=1.0, cap=30.0)

#: Builds the re-read's Context for a principal of the group's read scope (`build_context`
#: with `reread=True`: strongly consistent, and charged to no one by the operation).
ContextFactory = Callable[[Principal], Context]


def user_of(change: Change) -> str | None:
    """The user whose answers `change` may alter; None when it makes no event (SPEC 7:
    not the captures, not the locks): as the entities of its table declare."""
    return entities.user_of(change.table, change.partition_key)


def read_scope(principal: Principal) -> str:
    """What a principal may read, as far as one user's answer can tell."""
    return DASHBOARD if DASHBOARD in principal.roles else "self"


def _unavailable(payload: Payload) -> bool:
    errors = payload.get("errors") or ()
    return any(
        (error.get("extensions") or {}).get("code") == "DYNAMODB_UNAVAILABLE" for error in errors
    )


def next_midnight(now: datetime) -> datetime:
    return (now + timedelta(days=1)).replace(hour=0, minute=0, second=0, microsecond=0)


@dataclass(frozen=True, slots=True)
class GroupKey:
    query: str
    operation_name: str | None
    variables: str
    scope: str
    user_id: str


@dataclass(eq=False, slots=True)
class Group:
    key: GroupKey
    variables: dict[str, Any] | None
    subscribers: set[Subscriber] = field(default_factory=set)
    #: A change came: every subscriber gets the next re-read.
    dirty: bool = False
    #: Why the group is dirty (the first cause since its last re-read): the metrics' label.
    reason: RereadReason = "change"
    #: Subscribers that asked for the current state (`initial: true`), not yet re-read.
    initial: set[Subscriber] = field(default_factory=set)
    running: bool = False
    timer: asyncio.TimerHandle | None = None
    #: Re-reads in a row DynamoDB did not answer whole (0: the last one was whole).
    failures: int = 0
    #: Wakes the group when the first item its last re-read read expires (its TTL).
    expiry: asyncio.TimerHandle | None = None
    #: The last answer read: an equal new one is replaced by it, so that each subscriber
    #: finds it unchanged by identity, and the deep comparison is made once per group.
    last: Payload | None = None


class Events:
    """The subscription's source stream as graphql-core sees it. It never yields: the
    subscriber sends its answers itself (they are already executed, once per group), and
    this stream only ends when the operation is cancelled or closed."""

    def __init__(self, hub: LiveHub, subscriber: Subscriber) -> None:
        self._hub = hub
        self._subscriber = subscriber

    def __aiter__(self) -> Events:
        return self

    async def __anext__(self) -> User:
        try:
            await self._subscriber.run()
        finally:
            self._hub.remove(self._subscriber)
        raise StopAsyncIteration

    async def aclose(self) -> None:
        self._hub.remove(self._subscriber)


class LiveHub:
    """Every subscription of this replica; a `ChangeListener` of the change feed."""

    def __init__(
        self,
        schema: strawberry.Schema,
        new_context: ContextFactory,
        *,
        clock: Clock,
        charge: Charge = free,
        observer: LiveObserver | None = None,
        debounce: float = DEBOUNCE_SECONDS,
    ) -> None:
        self._schema = schema
        self._new_context = new_context
        self._clock = clock
        self._charge = CoalescedCharge(charge)
        self._observer = observer or NoObserver()
        self._debounce = debounce
        self._groups: dict[GroupKey, Group] = {}
        self._by_user: dict[str, set[Group]] = {}
        #: Every subscriber, with the groups it is in.
        self._subscribers: dict[Subscriber, list[Group]] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self._midnight: asyncio.TimerHandle | None = None

    @property
    def subscriptions(self) -> int:
        return len(self._subscribers)

    @property
    def groups(self) -> int:
        return len(self._groups)

    # --- the change feed's listener -------------------------------------------------

    def changes(self, changes: Sequence[Change]) -> None:
        for user_id in dict.fromkeys(filter(None, map(user_of, changes))):
            for group in self._by_user.get(user_id, ()):
                self._mark(group, "change")

    def position(self, position: ShardPosition) -> None:
        return None

    def resync(self, reason: str) -> None:
        """Changes may have been missed: every subscription is re-read, and gets what
        differs from what it last received."""
        logger.info("re-reading %d subscription groups: %s", len(self._groups), reason)
        for group in self._groups.values():
            self._mark(group, "resync")

    def disconnected(self) -> None:
        logger.warning("the change feed is cut off: subscriptions wait for its resync")

    # --- subscriptions ----------------------------------------------------------------

    def subscribe(
        self,
        *,
        principal: Principal,
        query: str,
        operation_name: str | None,
        variables: Mapping[str, Any] | None,
        user_ids: Iterable[str],
        initial: bool,
        cost: int,
        send: Send,
    ) -> Events:
        """Register a subscription to `user_ids` (already checked: the principal may read
        each); with `initial`, each user's current state is re-read for it at once."""
        distinct = tuple(dict.fromkeys(user_ids))
        subscriber = Subscriber(
            principal=principal,
            user_ids=distinct,
            cost=cost,
            send=send,
            charge=self._charge,
            observer=self._observer,
        )
        canonical = json.dumps(variables or {}, sort_keys=True, default=str)
        scope = read_scope(principal)
        groups = self._subscribers[subscriber] = []
        for user_id in distinct:
            key = GroupKey(query, operation_name, canonical, scope, user_id)
            group = self._groups.get(key)
            if group is None:
                group = Group(key, dict(variables) if variables else None)
                self._groups[key] = group
                self._by_user.setdefault(user_id, set()).add(group)
            group.subscribers.add(subscriber)
            groups.append(group)
            if initial:
                group.initial.add(subscriber)
                self._wake(group)
        return Events(self, subscriber)

    def remove(self, subscriber: Subscriber) -> None:
        for group in self._subscribers.pop(subscriber, ()):
            group.subscribers.discard(subscriber)
            group.initial.discard(subscriber)
            if not group.subscribers:
                self._drop(group)

    def _drop(self, group: Group) -> None:
        for timer in (group.timer, group.expiry):
            if timer is not None:
                timer.cancel()
        group.timer = group.expiry = None
        self._groups.pop(group.key, None)
        same_user = self._by_user.get(group.key.user_id)
        if same_user is not None:
            same_user.discard(group)
            if not same_user:
                del self._by_user[group.key.user_id]

    # --- re-reads ---------------------------------------------------------------------

    def _wake(self, group: Group) -> None:
        if group.timer is None and not group.running:
            loop = asyncio.get_running_loop()
            # A fresh context: the re-read must not inherit the waker's (an HTTP request's
            # log correlation id and budget charges).
            group.timer = loop.call_later(
                self._debounce, self._start, group, context=contextvars.Context()
            )

    def _mark(self, group: Group, reason: RereadReason) -> None:
        """`group` is re-read for every subscriber, for `reason` unless one is pending (a
        retry keeps the cause of the read it redoes)."""
        if not group.dirty:
            group.reason = reason
            group.dirty = True
        self._wake(group)

    def _start(self, group: Group) -> None:
        group.timer = None
        if not group.subscribers:
            return
        targets = set(group.subscribers) if group.dirty else set(group.initial)
        reason = group.reason if group.dirty else "initial"
        group.dirty = False
        group.initial.clear()
        if not targets:
            return
        group.running = True
        task = asyncio.create_task(self._reread(group, targets, reason))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _reread(self, group: Group, targets: set[Subscriber], reason: RereadReason) -> None:
        failed = True
        try:
            payload, expires_at = await self.execute(group.key, group.variables)
            self._observer.reread(reason)
            self._expire_at(group, expires_at)
            if payload == group.last:
                payload = group.last
            group.last = payload
            for subscriber in targets & group.subscribers:
                subscriber.offer(group.key.user_id, payload)
            failed = _unavailable(payload)
        except Exception:
            logger.exception("re-read of user %s failed", group.key.user_id)
        finally:
            group.running = False
            if failed and group.subscribers:
                self._retry_later(group, reason)
            else:
                group.failures = 0
            if group.subscribers and (group.dirty or group.initial):
                self._wake(group)

    def _retry_later(self, group: Group, reason: RereadReason) -> None:
        """DynamoDB did not answer the whole re-read: read again later for every subscriber,
        so that the last answer sent is never one with a field DynamoDB failed."""
        pause = RETRY.pause(group.failures)
        group.failures += 1
        logger.warning("re-read of user %s incomplete: again in %.1f s", group.key.user_id, pause)

        def again() -> None:
            if group.subscribers and self._groups.get(group.key) is group:
                self._mark(group, reason)

        asyncio.get_running_loop().call_later(pause, again, context=contextvars.Context())

    def _expire_at(self, group: Group, expires_at: float | None) -> None:
        """Read the group again just after the first item it read expires (before the next
        midnight, which re-reads everything anyway)."""
        if group.expiry is not None:
            group.expiry.cancel()
            group.expiry = None
        now = self._clock.now()
        if expires_at is None or expires_at > next_midnight(now).timestamp():
            return
        # An item is absent from its ttl second on (section 1): one second past it.
        delay = max(1.0, expires_at - now.timestamp() + 1.0)

        def expired() -> None:
            group.expiry = None
            if group.subscribers and self._groups.get(group.key) is group:
                self._mark(group, "clock")

        loop = asyncio.get_running_loop()
        group.expiry = loop.call_later(delay, expired, context=contextvars.Context())

    async def execute(
        self, key: GroupKey, variables: dict[str, Any] | None
    ) -> tuple[Payload, float | None]:
        """One user's answer to the group's document, read now, strongly consistent, and
        when the first item it read expires (epoch seconds; None: none has a TTL)."""
        roles = frozenset({DASHBOARD}) if key.scope == DASHBOARD else frozenset()
        context = self._new_context(Principal(sub=key.user_id, roles=roles))
        try:
            result = await self._schema.execute(
                key.query,
                variable_values=variables,
                context_value=context,
                root_value=User(id=strawberry.ID(key.user_id)),
                operation_name=key.operation_name,
                allowed_operation_types=(OperationType.SUBSCRIPTION,),
            )
            expiries = context.reads.expiries
            earliest = expiries.earliest if expiries is not None else None
        finally:
            context.reads.release()
        payload: Payload = {"data": result.data}
        if result.errors:
            payload["errors"] = [error.formatted for error in result.errors]
        return payload, float(earliest) if earliest is not None else None

    # --- time -------------------------------------------------------------------------

    def start(self) -> None:
        """Re-read every subscription at each UTC midnight, from now on."""
        delay = (next_midnight(self._clock.now()) - self._clock.now()).total_seconds()
        self._midnight = asyncio.get_running_loop().call_later(max(delay, 1.0), self._at_midnight)

    def _at_midnight(self) -> None:
        for group in self._groups.values():
            self._mark(group, "clock")
        self.start()

    async def close(self) -> None:
        if self._midnight is not None:
            self._midnight.cancel()
        for group in list(self._groups.values()):
            if group.timer is not None:
                group.timer.cancel()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
