"""A restart: when uvicorn shuts down (SIGTERM), its HTTP protocol (the image's `--http`)
ends every live stream with `retry:`, spread within a second, so that each EventSource comes
back at once, with its `Last-Event-ID`, to a replica still serving; nothing holds the
shutdown for its grace period."""

from __future__ import annotations

import asyncio
import socket
from contextlib import AsyncExitStack
from datetime import timedelta
from typing import Any

import uvicorn

from gateway.app import create_app
from gateway.auth.tokens import mint_token
from gateway.live_http.server_protocol import GatewayHttpProtocol
from gateway.live_http.stream import RESTART_RETRY_MS
from gateway.settings import Settings
from loaders.tables import Table
from support.fixed_clock import FixedClock
from tests.gateway.live_http.stream_client import Stream, open_stream
from tests.gateway.subscriptions.conftest import (
    SECRET,
    USER,
    live_gateway,
    live_settings,
    set_low_balance_alert,
)

VIEWER = "subscription { viewerChanged { id lowBalanceAlert } }"
STREAMS = 3
#: Far beyond what ending the streams takes: a shutdown held by them would take all of it.
GRACE_SECONDS = 60


async def test_a_shutdown_ends_every_stream_with_a_retry_within_a_second(
    settings: Settings, clock: FixedClock
) -> None:
    app = create_app(live_settings(settings), clock=clock)
    listening = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listening.bind(("127.0.0.1", 0))
    port = listening.getsockname()[1]
    config = uvicorn.Config(
        app,
        log_level="warning",
        lifespan="on",
        http=GatewayHttpProtocol,
        timeout_graceful_shutdown=GRACE_SECONDS,
    )
    server = uvicorn.Server(config)
    serving = asyncio.create_task(server.serve(sockets=[listening]))
    for _ in range(500):
        if server.started:
            break
        await asyncio.sleep(0.02)
    url = f"http://127.0.0.1:{port}/graphql"
    try:
        async with AsyncExitStack() as stack:
            streams: list[Stream] = []
            for n in range(STREAMS):
                token = mint_token(SECRET, f"u-{n}", (), timedelta(hours=1), clock)
                streams.append(await stack.enter_async_context(open_stream(url, token, VIEWER)))
            hub = app.state.resources.live
            for _ in range(500):
                if hub.subscriptions == STREAMS:
                    break
                await asyncio.sleep(0.02)
            assert hub.subscriptions == STREAMS

            server.should_exit = True
            ends = [await stream.event() for stream in streams]
            rest = [await stream.ended() for stream in streams]
            await asyncio.wait_for(serving, GRACE_SECONDS / 2)
    finally:
        server.should_exit = True
        await asyncio.wait_for(serving, GRACE_SECONDS)
        listening.close()

    retries = sorted(end.retry for end in ends if end.retry is not None)
    assert [end.event for end in ends] == [None] * STREAMS  # a bare `retry:`, no `complete`
    first, last = RESTART_RETRY_MS
    assert len(set(retries)) == STREAMS
    assert all(first <= retry <= last for retry in retries)
    assert rest == [""] * STREAMS


async def test_a_client_resumes_across_a_restart_with_its_last_event_id(
    settings: Settings, clock: FixedClock, dynamodb: Any
) -> None:
    """What an EventSource does at a restart: its stream ends with `retry:`, it comes back
    (here to the next replica) with `Last-Event-ID`, and gets the state that changed while
    it was away, once, then the changes after."""
    viewer = "subscription { viewerChanged(initial: true) { id lowBalanceAlert } }"
    await set_low_balance_alert(dynamodb, settings, USER, "40")
    async with (
        live_gateway(settings, clock) as first,
        open_stream(first.url, first.token(), viewer) as stream,
    ):
        seen = await stream.event()
        await first.subscribed()
        first.app.state.live_streams.restart_all()
        end = await stream.event()
        await stream.ended()
    await set_low_balance_alert(dynamodb, settings, USER, "55")  # while no replica serves it
    async with (
        live_gateway(settings, clock) as second,
        open_stream(
            second.url, second.token(), viewer, headers={"Last-Event-ID": str(seen.id)}
        ) as stream,
    ):
        missed = await stream.event()
        await second.subscribed()
        await set_low_balance_alert(dynamodb, settings, USER, "70")
        await second.publish(Table.BALANCE_SETTINGS, USER)
        after = await stream.event()

    assert end.retry is not None
    assert end.retry <= RESTART_RETRY_MS[1]
    assert missed.data == {"data": {"viewerChanged": {"id": USER, "lowBalanceAlert": "55.00"}}}
    assert after.data == {"data": {"viewerChanged": {"id": USER, "lowBalanceAlert": "70.00"}}}
