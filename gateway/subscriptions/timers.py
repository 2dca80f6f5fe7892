"""A socket's one-shot timer (no `connection_init` in time, then its token's expiry) on the
event loop's timer heap, not a task: an idle socket holds one timer handle, and a task
lives only while its close is being sent. The keepalive pings are the replica's one timer
(gateway/subscriptions/keepalive.py)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable

from starlette.websockets import WebSocketDisconnect

#: What a timer runs: a coroutine that sends on the socket.
Job = Callable[[], Awaitable[None]]

#: What a closed socket's send raises (starlette's WebSocketDisconnected is a RuntimeError).
CLOSED_ON_SEND = (WebSocketDisconnect, OSError, RuntimeError)


class SocketTimer:
    __slots__ = ("_handle", "_running")

    def __init__(self) -> None:
        self._handle: asyncio.TimerHandle | None = None
        #: The send the timer started, while it runs.
        self._running: asyncio.Task[None] | None = None

    def at(self, seconds: float, job: Job) -> None:
        """Run `job` once, `seconds` from now (in place of what was armed)."""
        self.stop()
        self._handle = asyncio.get_running_loop().call_later(seconds, self._run, job)

    def stop(self) -> None:
        """Disarm it (a send it started goes on)."""
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None

    def _run(self, job: Job) -> None:
        self._handle = None
        self._running = asyncio.get_running_loop().create_task(self._send(job))

    async def _send(self, job: Job) -> None:
        try:
            with contextlib.suppress(*CLOSED_ON_SEND):
                await job()
        finally:
            self._running = None

    async def cancel(self) -> None:
        """Disarm it, and stop a send it started."""
        self.stop()
        running = self._running
        if running is not None:
            running.cancel()
            await asyncio.gather(running, return_exceptions=True)
