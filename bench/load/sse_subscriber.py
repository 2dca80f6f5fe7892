"""A GraphQL over SSE client for the live phase (the `graphql-sse` protocol's distinct
connections, as the npm client and an `EventSource` speak it): one stream, one subscription,
every event it receives (with the instant it arrived), and a reconnect whenever the stream
ends before the phase does.

What an `EventSource` does at a restart, it does: the server's `retry:` sets the pause before
it comes back, and it comes back with `Last-Event-ID` (the id of the last event it received),
so that the gateway sends a state only when it differs from the one it holds. A stream that
ends otherwise (refused, cut) is retried after the socket client's backoff. Bounded: connect
and read time-outs (the gateway pings a stream every 15 s), and a pause between reconnects.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from dataclasses import dataclass, field
from typing import Any

import aiohttp

from bench.load.subscriber import RECONNECT_SECONDS, Received, Watch

#: A stream silent this long is dead (the gateway's keepalive comment comes every 15 s).
READ_SECONDS = 60.0
CONNECT_SECONDS = 15.0


@dataclass
class SseSubscriber(Received):
    """The socket client's surface (bench/load/subscriber.py) over one SSE stream; each
    stream ends (`closes`) by `retry` (a restart's), `complete`, `eof`, or `HTTP <status>`."""

    transport = "sse"
    #: The id of the last event received: sent back as `Last-Event-ID`.
    last_event_id: str | None = None
    #: Each reconnect's `Last-Event-ID` (None: a first subscribe).
    resumed_with: list[str | None] = field(default_factory=list)

    def __post_init__(self) -> None:
        if len(self.watches) != 1:
            raise ValueError("an SSE stream (distinct connections) carries one subscription")
        super().__post_init__()

    async def run(
        self, session: aiohttp.ClientSession, stop: asyncio.Event, start_after: float = 0.0
    ) -> None:
        """Connect `start_after` seconds from now, then keep a stream open until `stop`."""
        await asyncio.sleep(start_after)
        while not stop.is_set():
            pause: float | None = None
            try:
                pause = await self._stream(session, stop)
            except (aiohttp.ClientError, TimeoutError, ConnectionError, ValueError) as error:
                if not stop.is_set():  # else the phase's end closed it
                    self.errors.append(f"{type(error).__name__}: {error}"[:200])
            if stop.is_set():
                return
            await asyncio.sleep(random.uniform(*RECONNECT_SECONDS) if pause is None else pause)

    async def _stream(self, session: aiohttp.ClientSession, stop: asyncio.Event) -> float | None:
        """One stream, to its end; the server's `retry:` pause (seconds), if it sent one."""
        (watch,) = self.watches
        headers = {"Accept": "text/event-stream", "Authorization": f"Bearer {self.token}"}
        if self.last_event_id is not None:
            headers["Last-Event-ID"] = self.last_event_id
        self.resumed_with.append(self.last_event_id)
        timeout = aiohttp.ClientTimeout(
            total=None, sock_connect=CONNECT_SECONDS, sock_read=READ_SECONDS
        )
        body = {"query": watch.query, "variables": watch.variables}
        async with session.post(
            self.url + "/graphql", json=body, headers=headers, timeout=timeout
        ) as response:
            if response.status != 200:
                self.closes[f"HTTP {response.status}"] += 1
                raise ValueError(f"HTTP {response.status}: {(await response.text())[:150]}")
            self.connects += 1
            closer = asyncio.create_task(_close_on(stop, response))
            try:
                return await self._read(watch, response)
            finally:
                closer.cancel()

    async def _read(self, watch: Watch, response: aiohttp.ClientResponse) -> float | None:
        fields: dict[str, str] = {}
        retry: float | None = None
        async for raw in response.content:
            line = raw.decode().rstrip("\r\n")
            if line:
                if not line.startswith(":"):
                    name, _, value = line.partition(":")
                    fields[name] = value.removeprefix(" ")
                continue
            if "retry" in fields:
                retry = int(fields["retry"]) / 1000
            if fields.get("event") == "complete":
                self.closes["complete"] += 1
                return None
            if fields.get("event") == "next":
                self._receive(watch, fields)
            fields = {}
        self.closes["retry" if retry is not None else "eof"] += 1
        return retry

    def _receive(self, watch: Watch, fields: dict[str, str]) -> None:
        payload: Any = json.loads(fields.get("data") or "{}")
        if "id" in fields:
            self.last_event_id = fields["id"]
        data = payload.get("data") or {}
        user = next(iter(data.values()), None) if data else None
        amount = ((user or {}).get("incomeVerification") or {}).get("amountInCents")
        if payload.get("errors"):
            self.errors.append(f"event errors: {payload['errors']}"[:200])
            if not data:
                return
        self.events[watch.id].append((time.monotonic(), amount))


async def _close_on(stop: asyncio.Event, response: aiohttp.ClientResponse) -> None:
    await stop.wait()
    response.close()
