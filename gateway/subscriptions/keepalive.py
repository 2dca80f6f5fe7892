"""The keepalive pings of every acknowledged socket of a replica, on one timer.

graphql-transport-ws lets the server ping (`{"type": "ping"}`, the client answers pong),
which also keeps a proxy from closing an idle socket. Each socket is pinged once an
interval; the sockets are spread over `SLOTS` ticks of the interval, so that 10,000 of them
are pinged a few hundred at a time, not all at once, with one timer handle for the replica
rather than one a socket."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
from collections.abc import Awaitable
from typing import Protocol

from gateway.subscriptions.timers import CLOSED_ON_SEND

__all__ = ["SLOTS", "Keepalive", "Pinged"]

logger = logging.getLogger("gateway.subscriptions")

#: The ticks an interval is cut into: each socket is pinged at one of them.
SLOTS = 15


class Pinged(Protocol):
    def ping(self) -> Awaitable[None]: ...


class Keepalive:
    """Sockets pinged every `interval` seconds, a slot of them at each tick."""

    def __init__(self, interval: float) -> None:
        self.interval = interval
        self._slots: list[set[Pinged]] = [set() for _ in range(SLOTS)]
        self._joining = itertools.cycle(range(SLOTS))
        self._tick = 0
        self._timer: asyncio.TimerHandle | None = None
        self._pinging: set[asyncio.Task[None]] = set()

    def __len__(self) -> int:
        return sum(map(len, self._slots))

    @property
    def armed(self) -> bool:
        """Its timer runs (while any socket is in it)."""
        return self._timer is not None

    def join(self, socket: Pinged) -> int:
        """Ping `socket` from now on; its slot, for `leave`."""
        slot = next(self._joining)
        self._slots[slot].add(socket)
        if self._timer is None:
            self._arm()
        return slot

    def leave(self, socket: Pinged, slot: int) -> None:
        self._slots[slot].discard(socket)
        if self._timer is not None and not any(self._slots):
            self._timer.cancel()
            self._timer = None

    def _arm(self) -> None:
        self._timer = asyncio.get_running_loop().call_later(self.interval / SLOTS, self._fire)

    def _fire(self) -> None:
        slot = self._slots[self._tick]
        due = list(slot)
        self._tick = (self._tick + 1) % SLOTS
        self._arm()
        if due:
            task = asyncio.get_running_loop().create_task(_ping_each(due, slot))
            self._pinging.add(task)
            task.add_done_callback(self._pinging.discard)


async def _ping_each(sockets: list[Pinged], slot: set[Pinged]) -> None:
    # Side by side: a slow client (its send waiting for the transport to drain) holds up
    # only its own ping.
    await asyncio.gather(*(_ping(socket, slot) for socket in sockets))


async def _ping(socket: Pinged, slot: set[Pinged]) -> None:
    if socket not in slot:
        return  # it left between the tick and its ping (the task starts a turn later)
    try:
        with contextlib.suppress(*CLOSED_ON_SEND):
            await socket.ping()
    except Exception:
        logger.exception("a keepalive ping failed")
