"""The fleet of bench/socket_fleet.py over GraphQL over SSE: N streams on one replica, each
its own user's `viewerChanged`, held open on a gateway under uvicorn in its own process (the
image's command: its `--ws` and `--http` protocols), over moto's server.

The same figures as the sockets': the gateway's RSS per stream over the whole fleet (target:
at most what a socket costs, 20 KiB), the time to open it, the latency of a change to 100 of
its users (from each write's send to its event) and the re-reads per change. Its client is
a bare asyncio connection a stream (its request's bytes, then the events read as they come),
so that 10,000 of them fit in the bench's own process.
Bounded: fixed counts, every wait with a timeout, the server on loopback and stopped.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager

import httpx

from bench.processes import free_port, running
from bench.socket_fleet import (
    CHANGED_USERS,
    HTTP_PROTOCOL,
    OPENING,
    PROTOCOL,
    QUERY,
    REREADS,
    SECRET,
    WAIT,
    FleetResult,
    raise_own_file_limit,
    rss_kib,
    scrape,
    token,
    wait_for_subscriptions,
    write,
)
from schema.live import REREAD_REASONS
from support.metrics_text import total


class SseStream:
    """One stream's client side: the connection, read for `event: next` lines."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer

    async def next_event(self) -> float:
        """When the next `next` event arrives (keepalive comments skipped)."""
        async with asyncio.timeout(WAIT):
            while True:
                line = await self.reader.readline()
                if not line:
                    raise RuntimeError("the stream ended")
                if line.startswith(b"event: next"):
                    return time.perf_counter()


@asynccontextmanager
async def open_stream(port: int, user: str) -> AsyncIterator[SseStream]:
    body = json.dumps({"query": QUERY}).encode()
    request = (
        f"POST /graphql HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
        "Accept: text/event-stream\r\nContent-Type: application/json\r\n"
        f"Authorization: Bearer {token(user)}\r\nContent-Length: {len(body)}\r\n\r\n"
    ).encode() + body
    reader, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), WAIT)
    try:
        writer.write(request)
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), WAIT)
        if not head.startswith(b"HTTP/1.1 200"):
            raise RuntimeError(f"the stream was refused: {head[:200]!r}")
        yield SseStream(reader, writer)
    finally:
        writer.close()


async def sse_fleet(endpoint: str, streams: int) -> FleetResult:
    raise_own_file_limit()
    result = FleetResult(streams, 1, False, "--http GatewayHttpProtocol", transport="SSE stream")
    port = free_port()
    env = {
        "INSIGHT_DYNAMODB_ENDPOINT_URL": endpoint,
        "INSIGHT_SUBSCRIPTIONS": "true",
        "INSIGHT_SUBSCRIPTIONS_MAX_SOCKETS": str(streams + 10),
        "INSIGHT_AUTH_HS256_SECRET": SECRET,
        "INSIGHT_LOG_FORMAT": "console",
    }
    command = [
        sys.executable, "-m", "uvicorn", "--factory", "gateway.asgi:create_app_from_environ",
        "--host", "127.0.0.1", "--port", str(port), "--log-level", "warning", "--no-access-log",
        "--ws", PROTOCOL, "--http", HTTP_PROTOCOL,
    ]  # fmt: skip
    users = [f"fleet-{n}" for n in range(streams)]
    with running(command, port, {**os.environ, **env}) as process:
        async with (
            httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}") as http,
            AsyncExitStack() as stack,
        ):
            await stack.enter_async_context(open_stream(port, "fleet-warm"))
            await wait_for_subscriptions(http, 1)
            await asyncio.sleep(1.0)
            result.rss_before_kib = rss_kib(process.pid)
            started = time.perf_counter()
            opened: list[SseStream] = []
            for first in range(0, streams, OPENING):
                batch = users[first : first + OPENING]
                opened += await asyncio.gather(
                    *(stack.enter_async_context(open_stream(port, user)) for user in batch)
                )
            await wait_for_subscriptions(http, streams + 1)
            result.open_seconds = time.perf_counter() - started
            await asyncio.sleep(3.0)
            result.rss_after_kib = rss_kib(process.pid)
            before = await scrape(http)
            step = max(1, streams // CHANGED_USERS)
            chosen = list(range(0, streams, step))[:CHANGED_USERS]
            events = [asyncio.create_task(opened[n].next_event()) for n in chosen]
            sent = await asyncio.gather(*(write(http, users[n], n) for n in chosen))
            arrived = await asyncio.gather(*events)
            pairs = list(zip(arrived, sent, strict=True))
            result.latencies = [at - send for at, (send, _) in pairs]
            result.answers = [answered - send for _, (send, answered) in pairs]
            result.after_answer = [at - answered for at, (_, answered) in pairs]
            await asyncio.sleep(3.0)  # the streams' copies of the writes, re-read too
            after = await scrape(http)
            result.rereads = {
                reason: total(after, REREADS, reason=reason) - total(before, REREADS, reason=reason)
                for reason in REREAD_REASONS
            }
    return result
