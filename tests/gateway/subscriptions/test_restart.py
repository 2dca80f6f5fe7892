"""A restart nobody notices: at SIGTERM the gateway (the image's command, under uvicorn with
its `--ws` protocol) closes its sockets with 1012 (service restart), spread over the grace
period rather than all at once, and a real graphql-ws client reconnects by itself, to another
replica, and gets its subscription's state again."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from datetime import timedelta
from typing import Any

from gateway.auth.tokens import mint_token
from gateway.settings import Settings
from schema.clock import SystemClock
from support.processes import free_port, stop, wait_until_answered
from tests.environment import table_variables
from tests.gateway.subscriptions.conftest import (
    SECRET,
    USER,
    live_settings,
    set_low_balance_alert,
)
from tests.gateway.subscriptions.socket_client import Socket, open_socket
from tests.ws_clients.node_client import node_client, require_node

PROTOCOL = "gateway.subscriptions.server_protocol:GatewayWebSocketProtocol"
GRACE_SECONDS = 4
SOCKETS = 6
VIEWER_CHANGED = "subscription { viewerChanged(initial: true) { id lowBalanceAlert } }"


@asynccontextmanager
async def replica(settings: Settings) -> AsyncIterator[tuple[str, subprocess.Popen[bytes]]]:
    """The image's command on a free port: its `ws://…/graphql` URL and its process."""
    port = free_port()
    env = {
        **os.environ,
        **table_variables(settings.tables),
        "INSIGHT_DYNAMODB_ENDPOINT_URL": str(settings.dynamodb_endpoint_url),
        "INSIGHT_AUTH_HS256_SECRET": SECRET,
        "INSIGHT_SUBSCRIPTIONS": "true",
        "INSIGHT_LOG_FORMAT": "console",
    }
    command = [
        sys.executable, "-m", "uvicorn", "--factory", "gateway.asgi:create_app_from_environ",
        "--ws", PROTOCOL, "--host", "127.0.0.1", "--port", str(port),
        "--timeout-graceful-shutdown", str(GRACE_SECONDS),
    ]  # fmt: skip
    process = await asyncio.to_thread(
        subprocess.Popen, command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        healthz = f"http://127.0.0.1:{port}/healthz"
        await asyncio.to_thread(wait_until_answered, healthz, process, seconds=60)
        yield f"ws://127.0.0.1:{port}/graphql", process
    finally:
        await asyncio.to_thread(stop, process)


async def closed_at(socket: Socket) -> tuple[int | None, float]:
    code, _ = await socket.closed(within=3 * GRACE_SECONDS)
    return code, time.monotonic()


async def test_sigterm_closes_the_sockets_with_1012_spread_over_the_grace_period(
    settings: Settings,
) -> None:
    given = live_settings(settings)
    async with replica(given) as (url, process), AsyncExitStack() as stack:
        sockets: list[Socket] = []
        for n in range(SOCKETS):
            socket = await stack.enter_async_context(open_socket(url))
            assert (await socket.init(token(f"u-{n}")))["type"] == "connection_ack"
            await socket.subscribe("1", VIEWER_CHANGED)
            assert (await socket.receive())["type"] == "next"
            sockets.append(socket)
        signalled = time.monotonic()
        process.terminate()
        closes = await asyncio.gather(*(closed_at(socket) for socket in sockets))
        await asyncio.to_thread(process.wait, 3 * GRACE_SECONDS)
    assert [code for code, _ in closes] == [1012] * SOCKETS
    instants = sorted(at - signalled for _, at in closes)
    # Spread over 3/4 of the 4 s grace: one close every half second (2.5 s from the first to
    # the last), not all in one instant (a few ms). The bound is a quarter of the spread, so a
    # busy machine that delays some closes cannot fail it; that every close came before the
    # grace ran out is the codes' check (uvicorn's own close at the end would not be spread).
    assert instants[-1] - instants[0] >= 2.5 / 4, instants
    # It exited once they were closed (uvicorn re-raises the SIGTERM it handled: -15).
    assert process.returncode == -15


async def test_graphql_ws_reconnects_by_itself_to_another_replica(
    settings: Settings, dynamodb: Any
) -> None:
    require_node()
    given = live_settings(settings)
    await set_low_balance_alert(dynamodb, given, USER, "40")
    state = {"next": {"data": {"viewerChanged": {"id": USER, "lowBalanceAlert": "40.00"}}}}
    async with (
        replica(given) as (first, stopping),
        replica(given) as (second, _),
        node_client(
            "reconnect.mjs", urls=[first, second], token=token(USER), query=VIEWER_CHANGED
        ) as client,
    ):
        assert await client.line() == {"connected": first}
        assert await client.line() == state
        stopping.terminate()
        assert await client.line() == {"closed": 1012}
        assert await client.line() == {"connected": second}
        assert await client.line() == state


def token(sub: str) -> str:
    return mint_token(SECRET, sub, [], timedelta(hours=1), SystemClock())
