"""Where a socket's bytes go: tracemalloc in a gateway process (the image's command: uvicorn,
its factory, the gateway's `--ws` protocol) over moto's server, while N frontend sockets
(each its own user's `viewerChanged`) are opened; what they still hold after a full
collection, by package, per socket.

    .venv/bin/python -m bench.socket_memory [--sockets 300] [--compression]

Tracing starts once one warm socket is open (so imports and first-use caches are not
counted) and the snapshot is taken after `gc.collect()`. Bounded: fixed counts, every wait
with a timeout, the server on loopback and stopped.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import signal
import sys
import tempfile
import tracemalloc
from collections import Counter
from contextlib import AsyncExitStack
from pathlib import Path
from types import FrameType

import httpx

from bench.processes import free_port, running
from bench.socket_fleet import (
    OPENING,
    PROTOCOL,
    SECRET,
    open_frontend,
    raise_own_file_limit,
    wait_for_subscriptions,
)
from gateway.cli.embedded import EmbeddedDynamoDB
from gateway.resources import open_dynamo
from gateway.settings import Settings
from loaders.tables import create_tables

#: Path fragments → the part of the stack they are, first match wins.
PARTS = (
    ("/uvicorn/", "uvicorn"),
    ("/websockets/", "websockets (parser, headers)"),
    ("/starlette/", "starlette"),
    ("/strawberry/", "strawberry"),
    ("/graphql/", "graphql-core"),
    ("/asyncio/", "asyncio (tasks, queues, events)"),
    ("contextlib.py", "contextlib (async context managers)"),
    ("/gateway/", "gateway/"),
    ("/schema/", "schema/"),
    ("/loaders/", "loaders/"),
)


#: The source lines holding the most, listed after the parts.
LINES = 25


def part_of(filename: str) -> str:
    return next((part for fragment, part in PARTS if fragment in filename), "other")


def serve(port: int, out: Path) -> None:
    """The traced gateway: SIGUSR1 starts tracing, the second one writes what is held."""
    import uvicorn

    def on_signal(signum: int, frame: FrameType | None) -> None:
        if not tracemalloc.is_tracing():
            tracemalloc.start()
            return
        gc.collect()
        snapshot = tracemalloc.take_snapshot()
        held: Counter[str] = Counter()
        for stat in snapshot.statistics("filename"):
            held[part_of(stat.traceback[0].filename)] += stat.size
        lines = {
            f"{frame.filename.split('site-packages/')[-1]}:{frame.lineno}": stat.size
            for stat in snapshot.statistics("lineno")[:LINES]
            for frame in stat.traceback[:1]
        }
        out.write_text(json.dumps({"parts": held, "lines": lines}))

    signal.signal(signal.SIGUSR1, on_signal)
    uvicorn.run(
        "gateway.asgi:create_app_from_environ",
        factory=True,
        host="127.0.0.1",
        port=port,
        log_level="warning",
        access_log=False,
        ws=PROTOCOL,
    )


async def measure(
    endpoint: str, sockets: int, compression: bool, out: Path
) -> dict[str, dict[str, float]]:
    port = free_port()
    env = {
        "INSIGHT_DYNAMODB_ENDPOINT_URL": endpoint,
        "INSIGHT_SUBSCRIPTIONS": "true",
        "INSIGHT_SUBSCRIPTIONS_COMPRESSION": "true" if compression else "false",
        "INSIGHT_AUTH_HS256_SECRET": SECRET,
        "INSIGHT_LOG_FORMAT": "console",
    }
    command = [sys.executable, "-m", "bench.socket_memory", "serve", str(port), str(out)]
    url = f"ws://127.0.0.1:{port}/graphql"
    with running(command, port, {**os.environ, **env}) as process:
        async with (
            httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}") as http,
            AsyncExitStack() as stack,
        ):
            await open_frontend(stack, url, "traced-warm", 1)
            await wait_for_subscriptions(http, 1)
            process.send_signal(signal.SIGUSR1)
            await asyncio.sleep(1.0)
            for first in range(0, sockets, OPENING):
                users = [f"traced-{n}" for n in range(first, min(sockets, first + OPENING))]
                await asyncio.gather(*(open_frontend(stack, url, user, 1) for user in users))
            await wait_for_subscriptions(http, sockets + 1)
            process.send_signal(signal.SIGUSR1)
            for _ in range(600):
                held = await asyncio.to_thread(written, out)
                if held is not None:
                    return {
                        kind: {name: size / 1024 / sockets for name, size in sizes.items()}
                        for kind, sizes in held.items()
                    }
                await asyncio.sleep(0.1)
    raise RuntimeError("the traced gateway wrote nothing in 60 s")


def written(out: Path) -> dict[str, dict[str, int]] | None:
    """What the traced gateway held (by part, and its top lines), once it has written it."""
    if not out.exists() or not out.stat().st_size:
        return None
    held: dict[str, dict[str, int]] = json.loads(out.read_text())
    return held


async def main_async(sockets: int, compression: bool) -> None:
    raise_own_file_limit()
    embedded = EmbeddedDynamoDB()
    embedded.start()
    try:
        settings = Settings(dynamodb_endpoint_url=embedded.endpoint_url)
        async with open_dynamo(settings) as dynamo:
            await create_tables(dynamo.client, settings.tables)
        with tempfile.TemporaryDirectory() as folder:
            held = await measure(
                embedded.endpoint_url, sockets, compression, Path(folder) / "held.json"
            )
    finally:
        embedded.stop()
    per_socket = held["parts"]
    print(f"held a socket, {sockets} sockets, compression {'on' if compression else 'off'}:")
    for part, kib in sorted(per_socket.items(), key=lambda item: -item[1]):
        print(f"  {kib:6.1f} KiB  {part}")
    print(
        f"  {sum(per_socket.values()):6.1f} KiB  in all (Python objects; RSS adds the allocator's)"
    )
    print(f"the {LINES} lines holding the most, a socket:")
    for line, kib in held["lines"].items():
        print(f"  {kib:6.2f} KiB  {line}")


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["serve"]:
        serve(int(args[1]), Path(args[2]))
        return
    parser = argparse.ArgumentParser(prog="python -m bench.socket_memory")
    parser.add_argument("--sockets", type=int, default=300)
    parser.add_argument("--compression", action="store_true")
    given = parser.parse_args(args)
    asyncio.run(main_async(given.sockets, given.compression))


if __name__ == "__main__":
    main()
