"""What subscriptions cost: the gateway's memory per socket over a whole frontend fleet, the
latency of changes with the fleet open, and one change fanned out to many identical
subscriptions.

    .venv/bin/python -m bench.subscriptions [--sockets 10000] [--per-socket 1]
        [--compression off|on|both] [--fan-out 1000] [--transport socket|sse]

- Fleet (bench/socket_fleet.py): a gateway under uvicorn in its own process (the image's
  command, over moto's server) holding `--sockets` sockets, each its own user's with
  `--per-socket` `viewerChanged` subscriptions: RSS per socket measured over the whole fleet
  (target: at most 20 KiB), the time to open it, the latency of a change to 100 of its users
  (p50, p99; targets 1 s and 2 s), the re-reads per change by reason; with compression off
  (the default) and on.
- `--transport sse` (bench/sse_fleet.py): the same fleet over GraphQL over SSE, a stream a
  user (target: at most what a socket costs, 20 KiB); no compression runs, no fan-out.
- Fan-out: the gateway in this process (its `memory://` change feed), `--fan-out` identical
  subscriptions of one user, 100 to a socket, one write and its change published at once (the
  stream readers' copy of it comes a second later and finds the answer unchanged): the time
  until every subscriber has its event, the re-reads and the DynamoDB reads it took (target:
  one re-read per change per distinct document).
Bounded: fixed counts, every wait with a timeout, every server on loopback and stopped.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import gc
import json
import time
from collections.abc import Sequence
from contextlib import AsyncExitStack
from datetime import timedelta

from websockets.asyncio.client import ClientConnection, connect

from bench.socket_fleet import PROTOCOL, fleet
from bench.sse_fleet import sse_fleet
from gateway.app import create_app
from gateway.auth.tokens import mint_token
from gateway.cli.embedded import EmbeddedDynamoDB
from gateway.resources import open_dynamo
from gateway.settings import Settings
from gateway.state import opened_resources
from loaders.dynamodb import FinishedCall
from loaders.live.changes import Change
from loaders.tables import Table, TableNames, create_tables
from schema.clock import SystemClock
from schema.principal import DASHBOARD
from support.serving import serving

SECRET = "bench-subscriptions-" + "0" * 32
USER = "bench-live-1"
QUERY = "subscription($ids: [ID!]!) { userChanged(ids: $ids) { id lowBalanceAlert } }"
WAIT = 60.0


def token() -> str:
    return mint_token(SECRET, "bench-dash", [DASHBOARD], timedelta(hours=1), SystemClock())


async def open_subscriptions(
    stack: AsyncExitStack, url: str, count: int, per_socket: int
) -> list[ClientConnection]:
    sockets: list[ClientConnection] = []
    for first in range(0, count, per_socket):
        socket = await stack.enter_async_context(
            connect(url, subprotocols=["graphql-transport-ws"], open_timeout=WAIT)  # type: ignore[list-item]
        )
        await socket.send(
            json.dumps(
                {"type": "connection_init", "payload": {"Authorization": f"Bearer {token()}"}}
            )
        )
        assert json.loads(await asyncio.wait_for(socket.recv(), WAIT))["type"] == "connection_ack"
        for n in range(first, min(first + per_socket, count)):
            payload = {"query": QUERY, "variables": {"ids": [USER]}}
            await socket.send(json.dumps({"id": str(n), "type": "subscribe", "payload": payload}))
        sockets.append(socket)
    return sockets


async def receive_events(socket: ClientConnection, expected: int) -> int:
    received = 0
    while received < expected:
        message = json.loads(await asyncio.wait_for(socket.recv(), WAIT))
        if message["type"] == "ping":
            await socket.send(json.dumps({"type": "pong"}))
        elif message["type"] == "next":
            received += 1
        else:
            raise RuntimeError(f"unexpected {message}")
    return received


async def fan_out(endpoint: str, tables: TableNames, count: int, per_socket: int) -> None:
    settings = Settings(
        dynamodb_endpoint_url=endpoint,
        tables=tables,
        auth_hs256_secret=SECRET,
        subscriptions=True,
        subscriptions_max_per_connection=per_socket,
    )
    app = create_app(settings)
    calls: list[FinishedCall] = []
    async with serving(app) as url, AsyncExitStack() as stack:
        resources = opened_resources(app)
        hub, feed = resources.live, resources.change_feed
        assert hub is not None
        assert feed is not None
        resources.dynamo.observers.append(calls.append)
        sockets = await open_subscriptions(stack, url, count, per_socket)
        for _ in range(500):
            if hub.subscriptions == count:
                break
            await asyncio.sleep(0.02)
        for dollars in ("10", "20"):
            calls.clear()
            await resources.dynamo.client.put_item(
                TableName=tables.balance_settings,
                Item={"user_id": {"S": USER}, "low_balance_alert": {"N": dollars}},
            )
            started = time.perf_counter()
            await feed.publish([Change(Table.BALANCE_SETTINGS, USER)])
            per = [min(per_socket, count - n * per_socket) for n in range(len(sockets))]
            await asyncio.gather(*(receive_events(s, e) for s, e in zip(sockets, per, strict=True)))
            seconds = time.perf_counter() - started
            reads = [c for c in calls if c.operation in ("batch_get_item", "query")]
            print(f"fan-out: 1 change -> {count} events in {seconds * 1000:.0f} ms "
                  f"(clients in the same process), {len(reads)} DynamoDB read(s), "
                  f"{hub.groups} group(s)")  # fmt: skip


async def main_async(
    sockets: int,
    per_socket: int,
    compression: Sequence[bool],
    fan_out_count: int,
    ws: str,
    transport: str = "socket",
) -> None:
    embedded = EmbeddedDynamoDB()
    embedded.start()
    try:
        settings = Settings(dynamodb_endpoint_url=embedded.endpoint_url)
        tables = dataclasses.replace(settings).tables
        async with open_dynamo(settings) as dynamo:
            await create_tables(dynamo.client, tables)
        if transport == "sse":
            result = await sse_fleet(embedded.endpoint_url, sockets)
            print("\n".join(result.lines()), flush=True)
            return
        for compressed in compression:
            result = await fleet(embedded.endpoint_url, sockets, per_socket, compressed, ws)
            print("\n".join(result.lines()), flush=True)
            gc.collect()
        if fan_out_count:
            await fan_out(embedded.endpoint_url, tables, fan_out_count, 100)
    finally:
        embedded.stop()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.subscriptions")
    parser.add_argument("--sockets", type=int, default=1000)
    parser.add_argument("--per-socket", type=int, default=1)
    parser.add_argument("--compression", choices=("off", "on", "both"), default="both")
    parser.add_argument("--fan-out", type=int, default=1000)
    parser.add_argument(
        "--ws",
        default=PROTOCOL,
        help="uvicorn's --ws: the gateway's protocol, or websockets-sansio, websockets, wsproto",
    )
    parser.add_argument(
        "--transport",
        choices=("socket", "sse"),
        default="socket",
        help="what each frontend holds: a socket, or an SSE stream (--sockets of them)",
    )
    args = parser.parse_args(argv)
    modes = {"off": (False,), "on": (True,), "both": (False, True)}[args.compression]
    asyncio.run(
        main_async(args.sockets, args.per_socket, modes, args.fan_out, args.ws, args.transport)
    )


if __name__ == "__main__":
    main()
