"""A socket's timers (its keepalive pings, its token's expiry) on the event loop's one timer
heap, not a task each: an idle socket holds two timer handles, and a task lives only while a
ping or a close is being sent."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable

from starlette.websockets import WebSocketDisconnected as SocketClosedOnSend
from strawberry.http.exceptions import WebSocketDisconnected

#: What a timer runs: a coroutine that sends on the socket.
Job = Callable[[], Awaitable[None]]


class SocketTimers:
    __slots__ = ("_handles", "_running")

    def __init__(self) -> None:
        self._handles: dict[str, asyncio.TimerHandle] = {}
        #: The sends a timer started, while they run (none, mostly).
        self._running: set[asyncio.Task[None]] | None = None

    def every(self, name: str, seconds: float, job: Job) -> None:
        """Run `job` every `seconds` until cancelled (the next is armed once it has run)."""
        loop = asyncio.get_running_loop()
        self._handles[name] = loop.call_later(seconds, self._run, job, name, seconds)

    def at(self, name: str, seconds: float, job: Job) -> None:
        """Run `job` once, `seconds` from now."""
        loop = asyncio.get_running_loop()
        self._handles[name] = loop.call_later(seconds, self._run, job, None, 0.0)

    def _run(self, job: Job, again: str | None, seconds: float) -> None:
        task = asyncio.get_running_loop().create_task(self._send(job, again, seconds))
        if self._running is None:
            self._running = set()
        self._running.add(task)
        task.add_done_callback(self._running.discard)

    async def _send(self, job: Job, again: str | None, seconds: float) -> None:
        with contextlib.suppress(WebSocketDisconnected, SocketClosedOnSend, RuntimeError):
            await job()
            if again is not None:
                self.every(again, seconds, job)

    async def cancel(self) -> None:
        for handle in self._handles.values():
            handle.cancel()
        self._handles.clear()
        running = list(self._running or ())
        for task in running:
            task.cancel()
        await asyncio.gather(*running, return_exceptions=True)
