"""One live HTTP response (an SSE or multipart subscription), from its first byte to its
end, and every such response of a replica, ended together at a restart.

A stream holds no task of its own: the ASGI task of its request waits on `receive()` for
the client to go, the hub's subscriber sends each event through `send` (schema.live), the
replica's keepalive pings it, and a loop timer ends it when its token expires."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import Any

from starlette.types import Message

from gateway.auth.tokens import Unauthenticated
from gateway.live_http.framing import Framing, encode, event_id
from gateway.operations.payload import formatted
from gateway.subscriptions.timers import Job, SocketTimer
from schema.live import Payload

__all__ = ["RESTART_RETRY_MS", "LiveStream", "OpenStreams"]

logger = logging.getLogger("gateway.subscriptions")

#: The reconnect delays a restart hands its streams (`retry:`), spread from the first to
#: the last so that the clients come back within a second, not all in the same instant.
RESTART_RETRY_MS = (100, 1000)

AsgiSend = Callable[[Message], Awaitable[None]]


class LiveStream:
    """One streamed response: its framing, how its bytes leave, and the id of the state
    its client last saw (an event naming that same state is not sent again)."""

    __slots__ = ("_asgi_send", "_count_errors", "_expiry", "ended", "framing", "last_seen")

    def __init__(
        self,
        framing: Framing,
        asgi_send: AsgiSend,
        *,
        last_seen: str | None,
        count_errors: Callable[[Iterable[Mapping[str, Any]]], None] | None = None,
    ) -> None:
        self.framing = framing
        self._asgi_send = asgi_send
        self._count_errors = count_errors
        #: The id of the last state the client holds: from the request (a resume), then
        #: each event's as it is sent.
        self.last_seen = last_seen
        #: The response is over: nothing more is written.
        self.ended = False
        #: The token's expiry (the loop's timer, then a task while its job runs).
        self._expiry = SocketTimer()

    async def start(self, headers: list[tuple[bytes, bytes]]) -> None:
        await self._asgi_send({"type": "http.response.start", "status": 200, "headers": headers})
        await self._write(self.framing.start())

    async def send(self, payload: Payload) -> None:
        """One answer as an event named by its state (the hub's `Send`); none when the
        client already holds that state (a resume, or a state shown once more)."""
        data = encode(payload)
        state = event_id(data)
        if state == self.last_seen:
            return
        if self._count_errors is not None and (errors := payload.get("errors")):
            self._count_errors(errors)
        await self._write(self.framing.event(payload, data, state))
        self.last_seen = state

    async def answer(self, payload: Payload) -> None:
        """A one-off answer (a refusal before anything is read, a query's result): no id,
        since it names no state of the subscription."""
        if self._count_errors is not None and (errors := payload.get("errors")):
            self._count_errors(errors)
        await self._write(self.framing.event(payload, encode(payload), None))

    async def ping(self) -> None:
        """The keepalive's (gateway/subscriptions/keepalive.py): through idle proxies."""
        await self._write(self.framing.ping())

    async def expired(self) -> None:
        """The token expired: an UNAUTHENTICATED event, then `complete` (the client comes back
        with a new token and the last event id)."""
        refused = Unauthenticated("The bearer token has expired: reconnect with a new one")
        await self.answer({"errors": [formatted(refused)]})
        await self.complete()

    async def renew(self) -> None:
        """The token of a stream its browser authenticated by cookie expired: the stream
        ends with `retry:` (gateway/live_http/stream_cookie.py), as at a restart."""
        await self.restart(RESTART_RETRY_MS[0])

    async def complete(self) -> None:
        await self.end(self.framing.complete())

    async def restart(self, retry_ms: int) -> None:
        await self.end(self.framing.restart(retry_ms))

    def expire_at(self, delay: float, job: Job) -> None:
        """Run `job` (the token's expiry) `delay` seconds from now."""
        self._expiry.at(max(0.0, delay), job)

    def disarm(self) -> None:
        self._expiry.stop()

    async def end(self, last: bytes) -> None:
        """The response's last bytes: the ASGI server then answers the request task's
        `receive()` with `http.disconnect`, and the stream's cleanup runs there."""
        if self.ended:
            return
        self.ended = True
        self.disarm()
        with contextlib.suppress(OSError, RuntimeError):
            await self._asgi_send({"type": "http.response.body", "body": last, "more_body": False})

    async def _write(self, body: bytes) -> None:
        if self.ended:
            return
        # A client gone: the server drops the bytes (uvicorn) or raises; the request task's
        # `receive()` hears the disconnect and cleans up.
        with contextlib.suppress(OSError, RuntimeError):
            await self._asgi_send({"type": "http.response.body", "body": body, "more_body": True})


class OpenStreams:
    """The live streams of this replica, ended together at a restart (SIGTERM): each with a
    `retry:` spread over RESTART_RETRY_MS, so that its client comes back within a second,
    to the replicas still serving."""

    def __init__(self) -> None:
        self._open: set[LiveStream] = set()
        self.restarting = False
        #: The ends under way (held: the loop keeps only weak references to tasks).
        self._ending: asyncio.Future[list[None]] | None = None

    def add(self, stream: LiveStream) -> None:
        self._open.add(stream)

    def discard(self, stream: LiveStream) -> None:
        self._open.discard(stream)

    def restart_all(self) -> asyncio.Future[list[None]]:
        """End every open stream (once: uvicorn calls this from each connection's
        `shutdown`); the ends are sent side by side."""
        if self._ending is not None:
            return self._ending
        self.restarting = True
        streams = list(self._open)
        first, last = RESTART_RETRY_MS
        count = max(1, len(streams))
        logger.info("a restart: ending %d live HTTP streams with retry:", len(streams))
        self._ending = asyncio.gather(
            *(
                stream.restart(first + (last - first) * index // count)
                for index, stream in enumerate(streams)
            )
        )
        return self._ending
