"""The bench's delay proxy adds its delay once per answer, however the answer is split."""

from __future__ import annotations

import asyncio
import time

from bench.delay_proxy import serve
from bench.processes import free_port

#: The proxy's delay, and the upstream's pause between the parts of its answer. Delayed once,
#: an answer comes DELAY + (PARTS - 1) * GAP = 0.64 s after the request; a delay per part
#: would make it at least PARTS * DELAY = 10 s. The bound, 4x the first, stays far below the
#: second, and a loaded machine's stall of a second or two does not reach it.
DELAY = 0.25
GAP = 0.01
PARTS = 40
ANSWER = b"".join(b"part %d;" % n for n in range(PARTS))
ONCE = DELAY + (PARTS - 1) * GAP


async def _answer_in_parts(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    while await reader.read(1024):
        for n in range(PARTS):
            if n:
                await asyncio.sleep(GAP)
            writer.write(b"part %d;" % n)
            await writer.drain()
    writer.close()


async def test_each_answer_is_late_by_the_delay_once() -> None:
    upstream = await asyncio.start_server(_answer_in_parts, "127.0.0.1", 0)
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
            while len(answer) < len(ANSWER):
                answer += await reader.read(1024)
            elapsed = time.monotonic() - started
            assert answer == ANSWER
            assert DELAY <= elapsed < 4 * ONCE < PARTS * DELAY
        writer.close()
    finally:
        proxy.cancel()
        upstream.close()
