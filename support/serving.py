"""A gateway app served by uvicorn in this event loop, on a free 127.0.0.1 port: what the
socket tests and the subscriptions benchmark connect to."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import uvicorn
from starlette.types import ASGIApp

from gateway.live_http.server_protocol import GatewayHttpProtocol
from gateway.subscriptions.server_protocol import GatewayWebSocketProtocol


@asynccontextmanager
async def serving(app: ASGIApp) -> AsyncIterator[str]:
    """Serve `app` (its lifespan included) until the block ends; yields `ws://…/graphql`."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    # The gateway's WebSocket protocol, as the image runs it (compression from the settings).
    config = uvicorn.Config(
        app,
        log_level="warning",
        lifespan="on",
        ws_max_size=16 * 1024 * 1024,
        ws=GatewayWebSocketProtocol,
        http=GatewayHttpProtocol,
    )
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
