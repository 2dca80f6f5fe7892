"""The gateway served by uvicorn on 127.0.0.1, in the test's own event loop, and a
graphql-transport-ws client over the `websockets` package: real frames, real close codes."""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import uvicorn
from starlette.types import ASGIApp
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

PROTOCOL = "graphql-transport-ws"
#: Generous bounds for a loaded 2-core machine: a test waits at most this for a message.
WAIT_SECONDS = 10.0


@asynccontextmanager
async def serving(app: ASGIApp) -> AsyncIterator[str]:
    """Serve `app` (its lifespan included) until the block ends; yields `ws://…/graphql`."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = uvicorn.Config(app, log_level="warning", lifespan="on", ws_max_size=16 * 1024 * 1024)
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve(sockets=[sock]))
    try:
        for _ in range(500):
            if server.started or task.done():
                break
            await asyncio.sleep(0.02)
        assert server.started, "uvicorn did not start"
        yield f"ws://127.0.0.1:{port}/graphql"
    finally:
        server.should_exit = True
        await asyncio.wait_for(task, 15)
        sock.close()


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
