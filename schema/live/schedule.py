"""The scheduler: when each group is re-read.

Changes close together coalesce: a woken group waits `debounce` seconds (to the next
multiple of it on the loop's clock, so that every group woken within one such window starts
in the same tick and their re-reads share one read: `schema.live.shared_reads`), and never
has more than one re-read in flight; a change during a re-read makes one more after it, so the
last answer shows the latest committed state. A re-read DynamoDB could not answer whole is
tried again later. Time alone changes some answers (`payday` only on its UTC day, the
months of `savingsMonths`, an item's TTL): every group is also re-read at each UTC
midnight, and just after the first item its last re-read read expires.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import math
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from loaders.backoff import Backoff
from schema.clock import Clock
from schema.live.groups import Group, GroupIndex
from schema.live.ports import RereadReason
from schema.live.subscriber import Subscriber

logger = logging.getLogger("gateway.subscriptions")

#: How long a woken group waits for more changes before its re-read.
DEBOUNCE_SECONDS = 0.05
#: A re-read that DynamoDB could not answer whole is tried again after about a second,
#: doubling up to 30 s, until one succeeds (its partial answer is sent meanwhile).
RETRY = Backoff(base=1.0, cap=30.0)


@dataclass(frozen=True, slots=True)
class ReadOutcome:
    #: DynamoDB answered the whole re-read (no field failed).
    whole: bool
    #: When the first item it read expires (epoch seconds; None: none has a TTL).
    expires_at: float | None


#: Re-reads a group for some of its subscribers, for a reason.
ReadGroup = Callable[[Group, set[Subscriber], RereadReason], Awaitable[ReadOutcome]]


def next_midnight(now: datetime) -> datetime:
    return (now + timedelta(days=1)).replace(hour=0, minute=0, second=0, microsecond=0)


class RereadScheduler:
    """Runs `read` for the index's groups as changes, retries and the clock call for it."""

    def __init__(
        self, index: GroupIndex, read: ReadGroup, *, clock: Clock, debounce: float
    ) -> None:
        self._index = index
        self._read = read
        self._clock = clock
        self._debounce = debounce
        self._tasks: set[asyncio.Task[None]] = set()
        self._midnight: asyncio.TimerHandle | None = None

    def mark(self, group: Group, reason: RereadReason) -> None:
        """`group` is re-read for every subscriber, for `reason` unless one is pending (a
        retry keeps the cause of the read it redoes)."""
        if not group.dirty:
            group.reason = reason
            group.dirty = True
        self.wake(group)

    def wake(self, group: Group) -> None:
        """Re-read `group` after the debounce, unless that is already due or running."""
        if group.timer is None and not group.running:
            loop = asyncio.get_running_loop()
            # A fresh context: the re-read must not inherit the waker's (an HTTP request's
            # log correlation id and budget charges).
            group.timer = loop.call_at(
                self._due(loop.time()), self._start, group, context=contextvars.Context()
            )

    def _due(self, now: float) -> float:
        """At least `debounce` from `now`, on the grid of its multiples."""
        if self._debounce <= 0:
            return now
        return math.ceil((now + self._debounce) / self._debounce) * self._debounce

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
        task = asyncio.create_task(self._run(group, targets, reason))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _run(self, group: Group, targets: set[Subscriber], reason: RereadReason) -> None:
        failed = True
        try:
            outcome = await self._read(group, targets, reason)
            self._expire_at(group, outcome.expires_at)
            failed = not outcome.whole
        except Exception:
            logger.exception("re-read of user %s failed", group.key.user_id)
        finally:
            group.running = False
            if failed and group.subscribers:
                self._retry_later(group, reason)
            else:
                group.failures = 0
            if group.subscribers and (group.dirty or group.initial):
                self.wake(group)

    def _retry_later(self, group: Group, reason: RereadReason) -> None:
        """DynamoDB did not answer the whole re-read: read again later for every subscriber,
        so that the last answer sent is never one with a field DynamoDB failed."""
        pause = RETRY.pause(group.failures)
        group.failures += 1
        logger.warning("re-read of user %s incomplete: again in %.1f s", group.key.user_id, pause)

        def again() -> None:
            if group.subscribers and self._index.holds(group):
                self.mark(group, reason)

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
            if group.subscribers and self._index.holds(group):
                self.mark(group, "clock")

        loop = asyncio.get_running_loop()
        group.expiry = loop.call_later(delay, expired, context=contextvars.Context())

    def start(self) -> None:
        """Re-read every group at each UTC midnight, from now on."""
        delay = (next_midnight(self._clock.now()) - self._clock.now()).total_seconds()
        self._midnight = asyncio.get_running_loop().call_later(max(delay, 1.0), self._at_midnight)

    def _at_midnight(self) -> None:
        for group in self._index:
            self.mark(group, "clock")
        self.start()

    async def close(self) -> None:
        if self._midnight is not None:
            self._midnight.cancel()
        for group in self._index:
            if group.timer is not None:
                group.timer.cancel()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
