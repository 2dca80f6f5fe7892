"""`INSIGHT_SUBSCRIPTIONS_MAX_SOCKETS_PER_PRINCIPAL` (default 10): the sockets one token `sub`
holds on a replica. Over it, the socket closes with 4429 at `connection_init`, or the upgrade
is refused when the token comes in its header; another user is not concerned, and a closed
socket frees its place."""

from __future__ import annotations

import asyncio
from contextlib import AsyncExitStack

import pytest
from websockets.exceptions import InvalidStatus

from tests.gateway.subscriptions.conftest import OTHER, USER, LiveGateway
from tests.gateway.subscriptions.socket_client import Socket, open_socket
from tests.gateway.subscriptions.test_socket_protocol import view_of

DEFAULT_MAXIMUM = 10


async def released(live: LiveGateway, sub: str, *, to: int) -> None:
    """Wait until the server has let a socket go (it does so on its own time, after the
    close handshake the client sees)."""
    sockets = view_of(live).principal_sockets
    for _ in range(500):
        if sockets.held(sub) == to:
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"{sockets.held(sub)} sockets held, not {to}")


async def open_acknowledged(stack: AsyncExitStack, live: LiveGateway, token: str) -> Socket:
    socket = await stack.enter_async_context(open_socket(live.url))
    assert await socket.init(token) == {"type": "connection_ack"}
    return socket


async def test_the_eleventh_socket_of_one_sub_closes_with_4429(live: LiveGateway) -> None:
    async with AsyncExitStack() as stack:
        held = [await open_acknowledged(stack, live, live.token(USER)) for _ in range(10)]
        async with open_socket(live.url) as eleventh:
            await eleventh.send(
                {"type": "connection_init", "payload": {"Authorization": f"Bearer {live.token()}"}}
            )
            code, reason = await eleventh.closed()
        assert (code, reason) == (4429, "Too many sockets open for this user (at most 10)")
        # Another user is not concerned.
        await open_acknowledged(stack, live, live.token(OTHER))
        # The ten are still served.
        await held[0].send({"type": "ping"})
        assert await held[0].receive() == {"type": "pong"}
        # A closed socket frees its place.
        await held[0].connection.close()
        await released(live, USER, to=DEFAULT_MAXIMUM - 1)
        async with open_socket(live.url) as again:
            assert await again.init(live.token(USER)) == {"type": "connection_ack"}


async def test_with_the_token_in_the_upgrade_header_the_upgrade_is_refused(
    live: LiveGateway,
) -> None:
    headers = {"Authorization": f"Bearer {live.token(USER)}"}
    async with AsyncExitStack() as stack:
        for _ in range(DEFAULT_MAXIMUM):
            socket = await stack.enter_async_context(open_socket(live.url, headers=headers))
            assert await socket.init(None) == {"type": "connection_ack"}
        with pytest.raises(InvalidStatus) as refused:
            async with open_socket(live.url, headers=headers):
                pass
    response = refused.value.response
    assert response.status_code == 429
    assert b'"code":"RATE_LIMITED"' in response.body
