"""The request head, bounded by the server's protocol (gateway/live_http/server_protocol.py),
as the probe sent it: raw sockets on 127.0.0.1 to uvicorn serving the gateway as the image
does.

A 16 MB unterminated header gets 431 (`python -m bench hostile` measures the memory); a
partial head is closed once INSIGHT_HEAD_TIMEOUT_SECONDS have passed. The waits below are
generous bounds for "until it answers", never assertions on elapsed time."""

from __future__ import annotations

import asyncio
import dataclasses
import gc
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest
from websockets.asyncio.client import connect

from gateway.app import create_app
from gateway.live_http.server_protocol import GatewayHttpProtocol
from gateway.settings import Settings
from support.fixed_clock import FixedClock
from support.raw_heads import sent_until_answered
from support.serving import serving
from tests.gateway.subscriptions.conftest import live_settings
from tests.gateway.subscriptions.socket_client import PROTOCOL

#: The probe's header: 16 MB, never terminated.
PROBE_BYTES = 16 * 1024 * 1024
WAIT_SECONDS = 30.0


@asynccontextmanager
async def _served(settings: Settings, clock: FixedClock, **overrides: object) -> AsyncIterator[int]:
    app = create_app(dataclasses.replace(settings, **overrides), clock=clock)  # type: ignore[arg-type]
    async with serving(app) as url:
        yield int(url.split(":")[2].split("/")[0])


async def test_a_16_mb_header_gets_431(settings: Settings, clock: FixedClock) -> None:
    async with _served(settings, clock) as port:
        head = b"POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Probe: "
        line, sent = await asyncio.to_thread(sent_until_answered, port, head, PROBE_BYTES)
    # Refused once the bound was passed, whatever the sockets' buffers took meanwhile.
    assert line.startswith(b"HTTP/1.1 431 "), (line, sent)


@pytest.mark.parametrize("size", [16_000, 40_000])
async def test_a_whole_head_is_measured(settings: Settings, clock: FixedClock, size: int) -> None:
    """A head that arrives whole, in one read, is measured when it ends."""
    async with _served(settings, clock) as port:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        filler = b"a" * (size - 100)
        writer.write(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pad: " + filler + b"\r\n\r\n")
        await writer.drain()
        line = await asyncio.wait_for(reader.readline(), WAIT_SECONDS)
        writer.close()
    assert line.startswith(b"HTTP/1.1 200 " if size < 16_384 else b"HTTP/1.1 431 "), line


async def test_a_partial_head_is_closed_within_the_bound(
    settings: Settings, clock: FixedClock
) -> None:
    async with _served(settings, clock, head_timeout_seconds=0.5) as port:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        await writer.drain()
        # Closed by the server: end of stream, with no answer.
        assert await asyncio.wait_for(reader.read(), WAIT_SECONDS) == b""
        writer.close()
        # A kept-alive connection gets the same bound for its next head.
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        status = await asyncio.wait_for(reader.readline(), WAIT_SECONDS)
        writer.write(b"GET /healthz HTTP/1.1\r\n")
        await writer.drain()
        rest = await asyncio.wait_for(reader.read(), WAIT_SECONDS)
        writer.close()
    assert status.startswith(b"HTTP/1.1 200 ")
    assert b"HTTP/1.1" not in rest.split(b"\r\n\r\n", 1)[1]


async def test_kept_alive_requests_are_served(settings: Settings, clock: FixedClock) -> None:
    async with _served(settings, clock) as port:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        for _ in range(3):  # kept alive, each head whole at once
            writer.write(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            await writer.drain()
            assert (await asyncio.wait_for(reader.readline(), WAIT_SECONDS)).startswith(
                b"HTTP/1.1 200 "
            )
            await asyncio.wait_for(reader.readuntil(b'"ok"}'), WAIT_SECONDS)
        writer.close()


async def test_an_upgraded_connection_leaves_its_http_protocol_to_reference_counting(
    settings: Settings, clock: FixedClock, collector_off: None
) -> None:
    """Once a connection is a socket, its HTTP protocol is freed at once, not kept (with the
    upgrade's head) by a cycle until the collector's next pass."""
    # Protocols of other servers that may outlive their tests: not this test's.
    before = {id(o) for o in gc.get_objects() if isinstance(o, GatewayHttpProtocol)}
    async with (
        serving(create_app(live_settings(settings), clock=clock)) as url,
        connect(url, subprotocols=[PROTOCOL], open_timeout=WAIT_SECONDS),  # type: ignore[list-item]
    ):
        left = [
            o
            for o in gc.get_objects()
            if isinstance(o, GatewayHttpProtocol) and id(o) not in before
        ]
    assert left == []
