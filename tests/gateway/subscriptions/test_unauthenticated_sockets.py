"""Sockets authenticate before they hold a replica's place (issue 42), as the probe tried it:
30 idle tokenless sockets held a 30-socket replica full, and legitimate upgrades got 503.

A socket waiting for its `connection_init` counts against INSIGHT_SUBSCRIPTIONS_MAX_
UNAUTHENTICATED, not the replica's places; spent, new tokenless upgrades are refused, never
an upgrade that carries its token, nor an authenticated socket."""

from __future__ import annotations

import asyncio
from contextlib import AsyncExitStack

import pytest
from websockets.exceptions import InvalidStatus

from gateway.settings import Settings
from support.fixed_clock import FixedClock
from tests.gateway.subscriptions.conftest import OTHER, USER, LiveGateway, live_gateway
from tests.gateway.subscriptions.socket_client import Socket, open_socket
from tests.gateway.subscriptions.test_socket_protocol import view_of

PROBE = 30


async def _idle(stack: AsyncExitStack, live: LiveGateway, count: int) -> list[Socket]:
    """`count` tokenless sockets, upgraded and left silent (no `connection_init`)."""
    return [await stack.enter_async_context(open_socket(live.url)) for _ in range(count)]


async def test_thirty_tokenless_sockets_do_not_stop_an_authenticated_upgrade(
    settings: Settings, clock: FixedClock
) -> None:
    async with (
        live_gateway(settings, clock, subscriptions_max_sockets=PROBE) as live,
        AsyncExitStack() as stack,
    ):
        idle = await _idle(stack, live, PROBE)
        sockets = view_of(live).replica_sockets
        assert (sockets.open, sockets.waiting) == (0, PROBE)
        # The token at connection_init, as a browser sends it.
        late = await stack.enter_async_context(open_socket(live.url))
        assert await late.init(live.token(USER)) == {"type": "connection_ack"}
        # The token in the upgrade's header.
        header = {"Authorization": f"Bearer {live.token(OTHER)}"}
        early = await stack.enter_async_context(open_socket(live.url, headers=header))
        assert await early.init(live.token(OTHER)) == {"type": "connection_ack"}
        assert (sockets.open, sockets.waiting) == (2, PROBE)
        assert len(idle) == PROBE


async def test_with_the_allowance_spent_only_tokenless_upgrades_are_refused(
    settings: Settings, clock: FixedClock
) -> None:
    allowance = 4
    async with (
        live_gateway(
            settings,
            clock,
            subscriptions_max_sockets=PROBE,
            subscriptions_max_unauthenticated=allowance,
        ) as live,
        AsyncExitStack() as stack,
    ):
        await _idle(stack, live, allowance)
        refused = 0
        for _ in range(PROBE - allowance):
            with pytest.raises(InvalidStatus) as refusal:
                await stack.enter_async_context(open_socket(live.url))
            assert refusal.value.response.status_code == 503
            assert refusal.value.response.headers["Retry-After"] == "5"
            refused += 1
        assert refused == PROBE - allowance
        header = {"Authorization": f"Bearer {live.token(USER)}"}
        early = await stack.enter_async_context(open_socket(live.url, headers=header))
        assert await early.init(live.token(USER)) == {"type": "connection_ack"}
        await early.send({"type": "ping"})
        assert await early.receive() == {"type": "pong"}


async def test_a_silent_socket_is_closed_at_the_shorter_deadline_and_frees_its_place(
    settings: Settings, clock: FixedClock
) -> None:
    async with live_gateway(
        settings,
        clock,
        subscriptions_max_unauthenticated=1,
        subscriptions_init_seconds=0.2,
    ) as live:
        async with open_socket(live.url) as silent:
            code, _ = await silent.closed()
        assert code == 4408
        sockets = view_of(live).replica_sockets
        for _ in range(500):
            if sockets.waiting == 0:
                break
            await asyncio.sleep(0.02)
        assert sockets.waiting == 0
        async with open_socket(live.url) as next_one:
            assert await next_one.init(live.token()) == {"type": "connection_ack"}


async def test_a_socket_whose_token_finds_the_replica_full_is_closed_with_1013(
    settings: Settings, clock: FixedClock
) -> None:
    async with (
        live_gateway(settings, clock, subscriptions_max_sockets=1) as live,
        AsyncExitStack() as stack,
    ):
        first, second = await _idle(stack, live, 2)
        assert await first.init(live.token(USER)) == {"type": "connection_ack"}
        token = f"Bearer {live.token(OTHER)}"
        await second.send({"type": "connection_init", "payload": {"Authorization": token}})
        code, _ = await second.closed()
        # The authenticated one stays served.
        await first.send({"type": "ping"})
        assert await first.receive() == {"type": "pong"}
        sockets = view_of(live).replica_sockets
        assert (sockets.open, sockets.maximum) == (1, 1)
    assert code == 1013
