"""A TCP proxy that delays every byte DynamoDB sends back by a fixed time: run beside the
benchmark (`python -m bench.delay_proxy LISTEN_PORT TARGET_PORT DELAY_MS`), it makes each
call cost at least that much, so a request's latency shows how many waits it chains.

Bytes are held until `delay` after they arrived, never longer, so a response split into
several reads is delayed once, not once per read."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Awaitable, Callable

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while chunk := await reader.read(65536):
            writer.write(chunk)
            await writer.drain()
    finally:
        writer.close()


async def _delayed_pipe(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, delay: float
) -> None:
    loop = asyncio.get_running_loop()
    held: asyncio.Queue[tuple[float, bytes]] = asyncio.Queue()

    async def release() -> None:
        while True:
            due, chunk = await held.get()
            if not chunk:
                writer.close()
                return
            wait = due - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)
            writer.write(chunk)
            await writer.drain()

    releasing = asyncio.create_task(release())
    try:
        while chunk := await reader.read(65536):
            held.put_nowait((loop.time() + delay, chunk))
    finally:
        held.put_nowait((loop.time() + delay, b""))
        await releasing


def handler(target_port: int, delay: float) -> Handler:
    async def handle(
        client_reader: asyncio.StreamReader, client_writer: asyncio.StreamWriter
    ) -> None:
        try:
            upstream_reader, upstream_writer = await asyncio.open_connection(
                "127.0.0.1", target_port
            )
        except OSError:
            client_writer.close()
            return
        await asyncio.gather(
            _pipe(client_reader, upstream_writer),
            _delayed_pipe(upstream_reader, client_writer, delay),
            return_exceptions=True,
        )

    return handle


async def serve(listen_port: int, target_port: int, delay: float) -> None:
    server = await asyncio.start_server(handler(target_port, delay), "127.0.0.1", listen_port)
    async with server:
        await server.serve_forever()


def main(argv: list[str]) -> None:
    listen_port, target_port, delay_ms = (int(arg) for arg in argv)
    asyncio.run(serve(listen_port, target_port, delay_ms / 1000))


if __name__ == "__main__":
    main(sys.argv[1:])
