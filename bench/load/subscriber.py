"""A `graphql-transport-ws` client for the live phase: one socket, its subscriptions, every
event it receives (with the instant it arrived), and a reconnect, with `initial: true`
again, whenever the socket closes before the phase ends (a replica restarted under it).

The protocol is graphql-ws's (npm): connection_init with the token, connection_ack,
subscribe per id, next/error/complete, ping/pong. Bounded: connection and ack time-outs,
and a backoff between reconnects.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import aiohttp

PROTOCOL = "graphql-transport-ws"
#: The client's keep-alive ping (graphql-ws's `keepAlive`): under nginx's 30 s read timeout.
PING_SECONDS = 10.0
ACK_SECONDS = 15.0
RECONNECT_SECONDS = (0.1, 2.0)


@dataclass(frozen=True, slots=True)
class Watch:
    """One subscription: its id on the socket, its document and variables, the user it watches."""

    id: str
    user: str
    query: str
    variables: dict[str, Any]


@dataclass
class Received:
    """What a live-phase client received over its connection, whatever the transport."""

    url: str
    token: str
    watches: list[Watch]
    #: Per subscription id: (monotonic instant received, the watched amount) of each event.
    events: dict[str, list[tuple[float, int | None]]] = field(default_factory=dict)
    connects: int = 0
    #: How each connection ended (a close code, or the stream's end).
    closes: Counter[str] = field(default_factory=Counter)
    errors: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.events = {watch.id: [] for watch in self.watches}

    def has_initial_states(self) -> bool:
        return all(self.events[watch.id] for watch in self.watches)

    def latest(self, watch: Watch) -> int | None:
        events = self.events[watch.id]
        return events[-1][1] if events else None


@dataclass
class Subscriber(Received):
    transport = "websocket"

    async def run(
        self, session: aiohttp.ClientSession, stop: asyncio.Event, start_after: float = 0.0
    ) -> None:
        """Connect `start_after` seconds from now, then keep a socket open until `stop`."""
        await asyncio.sleep(start_after)
        while not stop.is_set():
            try:
                await self._connection(session, stop)
            except (aiohttp.ClientError, TimeoutError, ConnectionError, ValueError) as error:
                self.errors.append(f"{type(error).__name__}: {error}"[:200])
            if stop.is_set():
                return
            await asyncio.sleep(random.uniform(*RECONNECT_SECONDS))

    async def _connection(self, session: aiohttp.ClientSession, stop: asyncio.Event) -> None:
        async with session.ws_connect(
            self.url.replace("http", "ws", 1) + "/graphql",
            protocols=(PROTOCOL,),
            timeout=aiohttp.ClientWSTimeout(ws_receive=None, ws_close=5.0),
        ) as socket:
            self.connects += 1
            init = {"type": "connection_init", "payload": {"Authorization": f"Bearer {self.token}"}}
            await socket.send_json(init)
            ack = await socket.receive(timeout=ACK_SECONDS)
            if (
                ack.type != aiohttp.WSMsgType.TEXT
                or json.loads(ack.data)["type"] != "connection_ack"
            ):
                raise ValueError(f"no connection_ack: {ack.type} {ack.data!r:.100}")
            for watch in self.watches:
                payload = {"query": watch.query, "variables": watch.variables}
                await socket.send_json({"id": watch.id, "type": "subscribe", "payload": payload})
            tasks = [
                asyncio.create_task(self._ping(socket)),
                asyncio.create_task(self._close_on(stop, socket)),
            ]
            try:
                async for message in socket:
                    if message.type == aiohttp.WSMsgType.TEXT:
                        await self._receive(socket, json.loads(message.data))
            finally:
                for task in tasks:
                    task.cancel()
            self.closes[str(socket.close_code)] += 1

    async def _receive(self, socket: aiohttp.ClientWebSocketResponse, message: Any) -> None:
        kind = message.get("type")
        if kind == "next":
            data = message["payload"].get("data") or {}
            user = next(iter(data.values()), None) if data else None
            verification = (user or {}).get("incomeVerification") or {}
            amount = verification.get("amountInCents")
            self.events[message["id"]].append((time.monotonic(), amount))
            if message["payload"].get("errors"):
                self.errors.append(f"event errors: {message['payload']['errors']}"[:200])
        elif kind == "ping":
            await socket.send_json({"type": "pong"})
        elif kind in ("error", "complete"):
            self.errors.append(f"{kind} on {message.get('id')}: {message.get('payload')}"[:200])

    @staticmethod
    async def _ping(socket: aiohttp.ClientWebSocketResponse) -> None:
        while True:
            await asyncio.sleep(PING_SECONDS)
            await socket.send_json({"type": "ping"})

    @staticmethod
    async def _close_on(stop: asyncio.Event, socket: aiohttp.ClientWebSocketResponse) -> None:
        await stop.wait()
        await socket.close()
