"""The bench's delay proxy adds its delay once per answer, however the answer is split."""

from __future__ import annotations

import asyncio
import time

from bench.delay_proxy import serve
from bench.processes import free_port

#: The proxy's delay, and the upstream's pause between the two parts of its answer. Delayed
#: once, an answer comes DELAY + GAP after the request; a delay per part would make it at least
#: 2 * DELAY: the bound between the two leaves a loaded machine almost half a second.
DELAY = 0.5
GAP = 0.02


async def _answer_in_two_parts(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    while await reader.read(1024):
        writer.write(b"first half ")
        await writer.drain()
        await asyncio.sleep(GAP)
        writer.write(b"second half")
        await writer.drain()
    writer.close()


async def test_each_answer_is_late_by_the_delay_once() -> None:
    upstream = await asyncio.start_server(_answer_in_two_parts, "127.0.0.1", 0)
    upstream_port = upstream.sockets[0].getsockname()[1]
    proxy_port = free_port()
    proxy = asyncio.create_task(serve(proxy_port, upstream_port, DELAY))
    try:
        for _ in range(50):
            try:
                reader, writer = await asyncio.open_connection("127.0.0.1", proxy_port)
                break
            except OSError:
                await asyncio.sleep(0.02)
        for _ in range(2):  # the same connection, twice: keep-alive as botocore uses it
            started = time.monotonic()
            writer.write(b"request")
            answer = b""
            while len(answer) < len(b"first half second half"):
                answer += await reader.read(1024)
            elapsed = time.monotonic() - started
            assert answer == b"first half second half"
            assert DELAY <= elapsed < 2 * DELAY
        writer.close()
    finally:
        proxy.cancel()
        upstream.close()
