"""A restart: when uvicorn shuts down (SIGTERM), its HTTP protocol (the image's `--http`)
ends every live stream with `retry:`, spread within a second, so that each EventSource comes
back at once, with its `Last-Event-ID`, to a replica still serving; nothing holds the
shutdown for its grace period."""

from __future__ import annotations

import asyncio
import socket
from contextlib import AsyncExitStack
from datetime import timedelta

import uvicorn

from gateway.app import create_app
from gateway.auth.tokens import mint_token
from gateway.live_http.server_protocol import GatewayHttpProtocol
from gateway.live_http.stream import RESTART_RETRY_MS
from gateway.settings import Settings
from schema.clock import FixedClock
from tests.gateway.live_http.stream_client import Stream, open_stream
from tests.gateway.subscriptions.conftest import SECRET, live_settings

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
