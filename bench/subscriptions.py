"""What subscriptions cost: the gateway's memory per idle subscription, and one change
fanned out to many identical subscriptions.

    .venv/bin/python -m bench.subscriptions [--subscriptions 1000] [--per-socket 100]

- Memory: a gateway under uvicorn in its own process (the image's factory, subscriptions on,
  over moto's server); its RSS (/proc VmRSS) with one warm socket, then with N idle
  `userChanged` subscriptions open over N/per-socket sockets; printed per subscription,
  sockets included (target: at most 50 KiB).
- Fan-out: the gateway in this process (its `memory://` change feed), N identical
  subscriptions of one user, one write and its change published at once (the stream
  readers' copy of it comes a second later and finds the answer unchanged): the time until
  every subscriber has its event, the re-reads and the DynamoDB reads it took (target: one
  re-read per change per distinct document).
Bounded: fixed counts, every wait with a timeout, every server on loopback and stopped.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import gc
import json
import os
import sys
import time
from contextlib import AsyncExitStack
from datetime import timedelta
from pathlib import Path

from websockets.asyncio.client import ClientConnection, connect

from bench.processes import free_port, running
from gateway.app import create_app
from gateway.auth.tokens import mint_token
from gateway.cli.embedded import EmbeddedDynamoDB
from gateway.resources import open_dynamo
from gateway.settings import Settings
from gateway.state import opened_resources
from loaders.changes import Change
from loaders.dynamodb import FinishedCall
from loaders.tables import Table, TableNames, create_tables
from schema.clock import SystemClock
from schema.principal import DASHBOARD
from support.serving import serving

SECRET = "bench-subscriptions-" + "0" * 32
USER = "bench-live-1"
QUERY = "subscription($ids: [ID!]!) { userChanged(ids: $ids) { id lowBalanceAlert } }"
WAIT = 60.0


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS")


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


async def memory(endpoint: str, count: int, per_socket: int) -> None:
    port = free_port()
    env = {
        "INSIGHT_DYNAMODB_ENDPOINT_URL": endpoint,
        "INSIGHT_SUBSCRIPTIONS": "true",
        "INSIGHT_SUBSCRIPTIONS_MAX_PER_CONNECTION": str(per_socket),
        # Every socket here is the one bench token's.
        "INSIGHT_SUBSCRIPTIONS_MAX_SOCKETS_PER_PRINCIPAL": "10000",
        "INSIGHT_AUTH_HS256_SECRET": SECRET,
    }
    command = [
        sys.executable, "-m", "uvicorn", "--factory", "gateway.asgi:create_app_from_environ",
        "--host", "127.0.0.1", "--port", str(port), "--log-level", "warning", "--no-access-log",
    ]  # fmt: skip
    url = f"ws://127.0.0.1:{port}/graphql"
    with running(command, port, {**os.environ, **env}) as process:
        async with AsyncExitStack() as warm:
            await open_subscriptions(warm, url, 1, 1)
            await asyncio.sleep(1.0)
            before = rss_kib(process.pid)
            async with AsyncExitStack() as stack:
                await open_subscriptions(stack, url, count, per_socket)
                await asyncio.sleep(2.0)
                after = rss_kib(process.pid)
    per = (after - before) / count
    print(f"memory: {count} idle subscriptions over {-(-count // per_socket)} sockets")
    print(f"  gateway RSS {before} KiB -> {after} KiB: {per:.1f} KiB a subscription "
          f"(target <= 50 KiB: {'met' if per <= 50 else 'NOT met'})")  # fmt: skip


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


async def main_async(count: int, per_socket: int) -> None:
    embedded = EmbeddedDynamoDB()
    embedded.start()
    try:
        settings = Settings(dynamodb_endpoint_url=embedded.endpoint_url)
        tables = dataclasses.replace(settings).tables
        async with open_dynamo(settings) as dynamo:
            await create_tables(dynamo.client, tables)
        await memory(embedded.endpoint_url, count, per_socket)
        gc.collect()
        await fan_out(embedded.endpoint_url, tables, count, per_socket)
    finally:
        embedded.stop()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.subscriptions")
    parser.add_argument("--subscriptions", type=int, default=1000)
    parser.add_argument("--per-socket", type=int, default=100)
    args = parser.parse_args(argv)
    asyncio.run(main_async(args.subscriptions, args.per_socket))


if __name__ == "__main__":
    main()
