"""The live hub: subscriptions indexed by user id, woken by the change feed, each change
re-read once per group of identical subscriptions.

It puts together the group index (`groups.py`: who watches which user, with which
document), the scheduler (`schedule.py`: when each group is re-read) and the re-read
(`reread.py`: the document executed for one user, and the answer handed out).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import strawberry

from loaders.live.changes import Change, ShardPosition
from schema.clock import Clock
from schema.live.charges import CoalescedCharge
from schema.live.groups import Group, GroupIndex, GroupKey
from schema.live.ports import (
    Charge,
    ContextFactory,
    LiveObserver,
    NoObserver,
    Payload,
    RereadReason,
    Send,
    free,
)
from schema.live.reread import hand_out, read_answer, unavailable
from schema.live.schedule import DEBOUNCE_SECONDS, ReadOutcome, RereadScheduler
from schema.live.shared_reads import SharedReads
from schema.live.subscriber import Subscriber
from schema.principal import Principal

logger = logging.getLogger("gateway.subscriptions")


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
        self._live_schema = schema
        self._reads = SharedReads(new_context)
        self._charge = CoalescedCharge(charge)
        self._observer = observer or NoObserver()
        self._index = GroupIndex()
        self._scheduler = RereadScheduler(self._index, self._read, clock=clock, debounce=debounce)

    @property
    def subscriptions(self) -> int:
        return len(self._index.subscribers)

    @property
    def groups(self) -> int:
        return len(self._index)

    @property
    def _subscribers(self) -> Mapping[Subscriber, list[Group]]:
        # Every subscriber, with the groups it is in (the tests look at who is subscribed).
        return self._index.subscribers

    # --- the change feed's listener -------------------------------------------------

    def changes(self, changes: Sequence[Change]) -> None:
        for group in self._index.woken_by(changes):
            self._scheduler.mark(group, "change")

    def position(self, position: ShardPosition) -> None:
        return None

    def resync(self, reason: str) -> None:
        """Changes may have been missed: every subscription is re-read, and gets what
        differs from what it last received."""
        logger.info("re-reading %d subscription groups: %s", len(self._index), reason)
        for group in self._index:
            self._scheduler.mark(group, "resync")

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
    ) -> Subscriber:
        """Register a subscription to `user_ids` (already checked: the principal may read
        each); with `initial`, each user's current state is re-read for it at once. It
        holds until `remove`: its answers are sent through `send` meanwhile."""
        subscriber = Subscriber(
            principal=principal,
            user_ids=tuple(dict.fromkeys(user_ids)),
            cost=cost,
            send=send,
            charge=self._charge,
            observer=self._observer,
        )
        groups = self._index.join(
            subscriber, query=query, operation_name=operation_name, variables=variables
        )
        if initial:
            for group in groups:
                group.initial.add(subscriber)
                self._scheduler.wake(group)
        return subscriber

    def remove(self, subscriber: Subscriber) -> None:
        """Unsubscribe: out of its groups, and nothing more sent."""
        self._index.leave(subscriber)
        subscriber.close()

    # --- re-reads ---------------------------------------------------------------------

    async def _read(
        self, group: Group, targets: set[Subscriber], reason: RereadReason
    ) -> ReadOutcome:
        payload, expires_at = await self.execute(group.key, group.variables)
        self._observer.reread(reason)
        hand_out(group, targets, payload)
        return ReadOutcome(whole=not unavailable(payload), expires_at=expires_at)

    async def execute(
        self, key: GroupKey, variables: dict[str, Any] | None
    ) -> tuple[Payload, float | None]:
        """One user's answer to the group's document, read now, strongly consistent, and
        when the first item it read expires (epoch seconds; None: none has a TTL)."""
        return await read_answer(self._live_schema, self._reads, key, variables)

    # --- time -------------------------------------------------------------------------

    def start(self) -> None:
        """Re-read every subscription at each UTC midnight, from now on."""
        self._scheduler.start()

    async def close(self) -> None:
        await self._scheduler.close()
