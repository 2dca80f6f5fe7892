"""The gateway served by uvicorn on 127.0.0.1, in the test's own event loop, and a
graphql-transport-ws client over the `websockets` package: real frames, real close codes."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from support.serving import serving as serving

PROTOCOL = "graphql-transport-ws"
#: Generous bounds for a loaded 2-core machine: a test waits at most this for a message.
WAIT_SECONDS = 10.0


class Socket:
    """One client socket: JSON messages in and out, and how it was closed."""

    def __init__(self, connection: ClientConnection) -> None:
        self.connection = connection

    async def send(self, message: dict[str, Any] | str) -> None:
        await self.connection.send(message if isinstance(message, str) else json.dumps(message))

    async def receive(self, within: float = WAIT_SECONDS) -> dict[str, Any]:
        """The next message that is not a keepalive ping (answered with a pong), within
        `within` seconds in all: the server's pings do not extend the wait."""
        async with asyncio.timeout(within):
            while True:
                message: dict[str, Any] = json.loads(await self.connection.recv())
                if message.get("type") == "ping":
                    await self.send({"type": "pong"})
                    continue
                return message

    async def init(self, token: str | None, **payload: Any) -> dict[str, Any]:
        if token is not None:
            payload["Authorization"] = f"Bearer {token}"
        await self.send({"type": "connection_init", "payload": payload})
        return await self.receive()

    async def subscribe(
        self, operation_id: str, query: str, variables: dict[str, Any] | None = None
    ) -> None:
        payload: dict[str, Any] = {"query": query}
        if variables is not None:
            payload["variables"] = variables
        await self.send({"id": operation_id, "type": "subscribe", "payload": payload})

    async def closed(self, within: float = WAIT_SECONDS) -> tuple[int | None, str]:
        """Wait for the server to close the socket: (code, reason); messages are skipped."""
        try:
            async with asyncio.timeout(within):
                while True:
                    await self.connection.recv()
        except ConnectionClosed as closed:
            received = closed.rcvd
            return (received.code, received.reason) if received else (None, "")

    async def silent(self, seconds: float) -> bool:
        """True when nothing but pings arrives for `seconds`."""
        try:
            message = await self.receive(within=seconds)
        except TimeoutError:
            return True
        raise AssertionError(f"unexpected message {message}")


@asynccontextmanager
async def open_socket(
    url: str, *, subprotocols: list[str] | None = None, headers: dict[str, str] | None = None
) -> AsyncIterator[Socket]:
    async with connect(
        url,
        subprotocols=[*(subprotocols or [PROTOCOL])],  # type: ignore[list-item]
        additional_headers=headers,
        open_timeout=WAIT_SECONDS,
        max_size=None,
    ) as connection:
        yield Socket(connection)
