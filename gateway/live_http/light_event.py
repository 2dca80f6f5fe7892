"""`asyncio.Event` as uvicorn's HTTP protocol uses it (set, clear, is_set, wait), without
the event's deque (about 600 bytes) for a connection's whole life: a future only while
something waits. A live stream's connection holds two (its request's `message_event`, its
flow control's writable event) for hours (gateway/live_http/server_protocol.py)."""

from __future__ import annotations

import asyncio

__all__ = ["LightEvent"]


class LightEvent:
    __slots__ = ("_flag", "_waiter")

    def __init__(self, *, flag: bool = False) -> None:
        self._flag = flag
        self._waiter: asyncio.Future[None] | None = None

    def is_set(self) -> bool:
        return self._flag

    def set(self) -> None:
        self._flag = True
        waiter, self._waiter = self._waiter, None
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def clear(self) -> None:
        self._flag = False

    async def wait(self) -> None:
        if self._flag:
            return
        if self._waiter is None:
            self._waiter = asyncio.get_running_loop().create_future()
        # Shielded: several may wait (a stream's event and its ping both drain), and one
        # cancelled must not cancel the future the others wait on.
        await asyncio.shield(self._waiter)
