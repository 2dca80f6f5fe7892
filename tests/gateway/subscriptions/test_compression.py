"""`INSIGHT_SUBSCRIPTIONS_COMPRESSION`: under the gateway's WebSocket protocol (the image's
`--ws`), per-message compression is off by default, the client's offer of permessage-deflate
declined in the handshake's answer, and on when the setting says so."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest
import uvicorn
from starlette.types import ASGIApp
from websockets.asyncio.client import connect

from gateway.app import create_app
from gateway.settings import Settings
from gateway.subscriptions.server_protocol import GatewayWebSocketProtocol
from schema.clock import FixedClock
from tests.gateway.subscriptions.conftest import live_settings
from tests.gateway.subscriptions.socket_client import PROTOCOL, WAIT_SECONDS


@asynccontextmanager
async def served(app: ASGIApp) -> AsyncIterator[str]:
    """`app` under uvicorn with the gateway's protocol, as the image runs it."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(
        uvicorn.Config(app, log_level="warning", lifespan="on", ws=GatewayWebSocketProtocol)
    )
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


@pytest.mark.parametrize(
    ("compression", "negotiated"), [(False, None), (True, "permessage-deflate")]
)
async def test_compression_is_negotiated_only_when_the_setting_is_on(
    settings: Settings, clock: FixedClock, compression: bool, negotiated: str | None
) -> None:
    given = live_settings(settings, subscriptions_compression=compression)
    async with (
        served(create_app(given, clock=clock)) as url,
        # The client offers permessage-deflate, as browsers do.
        connect(
            url,
            subprotocols=[PROTOCOL],  # type: ignore[list-item]
            open_timeout=WAIT_SECONDS,
            compression="deflate",
        ) as connection,
    ):
        assert connection.request is not None
        assert "permessage-deflate" in connection.request.headers["Sec-WebSocket-Extensions"]
        assert connection.response is not None
        answered = connection.response.headers.get("Sec-WebSocket-Extensions")
        assert (answered.split(";")[0] if answered else None) == negotiated
