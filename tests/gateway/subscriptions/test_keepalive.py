"""The replica's keepalive: every acknowledged socket pinged once an interval, a slot of
them at each tick, on one timer that stops when no socket is left."""

from __future__ import annotations

import asyncio
from collections import Counter

from gateway.subscriptions.keepalive import SLOTS, Keepalive


class Socket:
    def __init__(self, pings: list[tuple[float, int]], number: int) -> None:
        self.pings = pings
        self.number = number
        self.closed = False
        #: Its send waits this long (a client that does not read: the transport is full).
        self.stalls = 0.0

    async def ping(self) -> None:
        if self.closed:
            raise RuntimeError("Cannot call 'send' once a close message has been sent.")
        self.pings.append((asyncio.get_running_loop().time(), self.number))
        await asyncio.sleep(self.stalls)


async def test_each_socket_is_pinged_once_an_interval_a_slot_at_a_time() -> None:
    interval = 0.3
    keepalive = Keepalive(interval)
    pings: list[tuple[float, int]] = []
    sockets = [Socket(pings, number) for number in range(3 * SLOTS)]
    # A closed socket not yet gone, or a stalled one, does not hold up the others' pings
    # (socket 16 shares socket 1's slot).
    sockets[0].closed = True
    sockets[1].stalls = interval * 3
    slots = [keepalive.join(socket) for socket in sockets]
    assert len(keepalive) == 3 * SLOTS
    await asyncio.sleep(interval * 1.5)
    pinged = [number for _, number in pings]
    assert set(pinged) >= set(range(1, 3 * SLOTS))
    # Spread: three sockets a slot (a tick of the interval each), never all at once.
    assert sorted(Counter(slots).values()) == [3] * SLOTS
    for socket, slot in zip(sockets, slots, strict=True):
        keepalive.leave(socket, slot)
    assert len(keepalive) == 0
    pings.clear()
    await asyncio.sleep(interval)
    assert pings == []
    assert not keepalive.armed


async def test_a_socket_that_leaves_after_its_tick_is_not_pinged() -> None:
    interval = 0.15
    keepalive = Keepalive(interval)
    pings: list[tuple[float, int]] = []
    socket = Socket(pings, 0)
    slot = keepalive.join(socket)
    # Its tick comes; the pings' task starts a turn of the loop later. It leaves between.
    due = asyncio.get_running_loop().time() + interval / SLOTS
    while asyncio.get_running_loop().time() < due or not keepalive._pinging:
        await asyncio.sleep(0)
        if keepalive._pinging:
            keepalive.leave(socket, slot)
            break
    await asyncio.sleep(interval)
    assert pings == []
