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
    def __init__(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._handles: dict[str, asyncio.TimerHandle] = {}
        self._running: set[asyncio.Task[None]] = set()

    def every(self, name: str, seconds: float, job: Job) -> None:
        """Run `job` every `seconds` until cancelled (the next is armed once it has run)."""

        def fire() -> None:
            self._run(job, lambda: self.every(name, seconds, job))

        self._handles[name] = self._loop.call_later(seconds, fire)

    def at(self, name: str, seconds: float, job: Job) -> None:
        """Run `job` once, `seconds` from now."""
        self._handles[name] = self._loop.call_later(seconds, self._run, job, None)

    def _run(self, job: Job, then: Callable[[], None] | None) -> None:
        async def run() -> None:
            with contextlib.suppress(WebSocketDisconnected, SocketClosedOnSend, RuntimeError):
                await job()
                if then is not None:
                    then()

        task = self._loop.create_task(run())
        self._running.add(task)
        task.add_done_callback(self._running.discard)

    async def cancel(self) -> None:
        for handle in self._handles.values():
            handle.cancel()
        self._handles.clear()
        for task in list(self._running):
            task.cancel()
        await asyncio.gather(*self._running, return_exceptions=True)
