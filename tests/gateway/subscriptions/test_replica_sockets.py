"""`INSIGHT_SUBSCRIPTIONS_MAX_SOCKETS`: the sockets one replica holds. Over it, the upgrade is
refused with 503 and `Retry-After` before the WebSocket is accepted (a balancer then tries
another replica), whoever asks; a closed socket frees its place."""

from __future__ import annotations

import asyncio
import json
from contextlib import AsyncExitStack

import pytest
from websockets.exceptions import InvalidStatus

from gateway.settings import Settings
from support.fixed_clock import FixedClock
from tests.gateway.subscriptions.conftest import OTHER, USER, LiveGateway, live_gateway
from tests.gateway.subscriptions.socket_client import open_socket
from tests.gateway.subscriptions.test_socket_protocol import view_of

MAXIMUM = 2


async def test_an_upgrade_over_the_replicas_maximum_is_refused_with_503_and_retry_after(
    settings: Settings, clock: FixedClock
) -> None:
    async with (
        live_gateway(settings, clock, subscriptions_max_sockets=MAXIMUM) as live,
        AsyncExitStack() as stack,
    ):
        held = []
        for sub in (USER, OTHER):
            socket = await stack.enter_async_context(open_socket(live.url))
            assert await socket.init(live.token(sub)) == {"type": "connection_ack"}
            held.append(socket)
        # A third, from anyone, before anything is accepted: its token is not looked at.
        with pytest.raises(InvalidStatus) as refused:
            async with open_socket(live.url):
                pass
        response = refused.value.response
        assert response.status_code == 503
        assert response.headers["Retry-After"] == "5"
        assert response.headers["Cache-Control"] == "no-store"
        body = json.loads(response.body)
        assert body["errors"][0]["extensions"] == {"code": "SERVICE_UNAVAILABLE"}
        assert "maximum of sockets (2)" in body["errors"][0]["message"]
        # The two held are still served.
        await held[1].send({"type": "ping"})
        assert await held[1].receive() == {"type": "pong"}
        # A closed socket frees its place.
        await held[0].connection.close()
        await freed(live, to=MAXIMUM - 1)
        async with open_socket(live.url) as again:
            assert await again.init(live.token()) == {"type": "connection_ack"}


async def freed(live: LiveGateway, *, to: int) -> None:
    sockets = view_of(live).replica_sockets
    for _ in range(500):
        if sockets.open == to:
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"{sockets.open} sockets open, not {to}")
