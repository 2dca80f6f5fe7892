"""`python -m bench cache`: issue 21's rows alone, `gateway`, `gateway, cached` and
`direct` for 1, 10 and 100 users, measured side by side in turns (as in `make bench`),
with their CPU per user as ratios of the direct floor's, then `gateway, cached +20ms`
beside `direct +20ms` (1 user, through the delay proxy). Only the gateway processes these
need are started; a few minutes on the shared machine."""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from datetime import timedelta

import aioboto3
import aiohttp

from bench import processes
from bench.direct import COLLECTION
from bench.poster import pool, poster
from bench.report import DELAY_MS, Row, print_table
from bench.run import (
    POOL,
    SECRET,
    SERVERS,
    CpuClock,
    Servers,
    common_env,
    direct_sender,
    gateway_body,
    measure_together,
    prepare,
)
from gateway.auth.tokens import mint_token
from gateway.resources import client_config, settled_collector
from gateway.settings import Settings
from schema.clock import SystemClock
from schema.principal import DASHBOARD
from support.dynalite_server import DynaliteServer

USERS = (1, 10, 100)


def _cpu_of(pid: int) -> CpuClock:
    return lambda: processes.cpu_seconds(pid)


async def cache_rows(servers: Servers, dynalite_url: str, delayed_url: str) -> list[Row]:
    token = mint_token(SECRET, "bench", [DASHBOARD], timedelta(hours=2), SystemClock())
    headers = {"Authorization": f"Bearer {token}", "X-Insight-Cost": "1"}
    rows: list[Row] = []
    async with contextlib.AsyncExitStack() as stack:
        stack.enter_context(settled_collector())
        http = await stack.enter_async_context(aiohttp.ClientSession(connector=pool(4)))
        client, delayed = [
            await stack.enter_async_context(
                aioboto3.Session().client(
                    "dynamodb",
                    endpoint_url=url,
                    region_name="us-east-1",
                    config=client_config(Settings()),
                )
            )
            for url in (dynalite_url, delayed_url)
        ]
        slots = asyncio.Semaphore(POOL)
        for users in USERS:
            measured = []
            for name, server in (("gateway", "main"), ("gateway, cached", "cached")):
                url = servers.urls[server] + "/graphql"
                send = poster(http, url, gateway_body(users), headers)
                measured.append((Row(name, users), send, _cpu_of(servers.pids[server])))
            direct = direct_sender(client, users, COLLECTION, slots)
            measured.append((Row("direct", users), direct, time.process_time))
            rows += await measure_together(measured)
        url = servers.urls["cached_delayed"] + "/graphql"
        rows += await measure_together(
            [
                (
                    Row(f"gateway, cached +{DELAY_MS}ms", 1),
                    poster(http, url, gateway_body(1), headers),
                    _cpu_of(servers.pids["cached_delayed"]),
                ),
                (
                    Row(f"direct +{DELAY_MS}ms", 1),
                    direct_sender(delayed, 1, COLLECTION, slots),
                    time.process_time,
                ),
            ]
        )
    return rows


def main() -> None:
    os.environ.setdefault("AWS_ACCESS_KEY_ID", "bench")
    os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "bench")
    os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")
    dynalite = DynaliteServer()
    dynalite.start()
    try:
        run_cache(dynalite.port)
    finally:
        dynalite.stop()


def run_cache(dynalite_port: int) -> None:
    dynalite_url = f"http://127.0.0.1:{dynalite_port}"
    proxy_port = processes.free_port()
    delayed_url = f"http://127.0.0.1:{proxy_port}"
    ports = {name: processes.free_port() for name in ("main", "cached", "cached_delayed")}
    # The delayed gateway reads DynamoDB through the delay proxy, as in `make bench`.
    endpoint = {"cached_delayed": {"INSIGHT_DYNAMODB_ENDPOINT_URL": delayed_url}}
    with (
        processes.running(processes.delay_proxy(proxy_port, dynalite_port, DELAY_MS), proxy_port),
        contextlib.ExitStack() as stack,
    ):
        asyncio.run(prepare(dynalite_url))
        pids = {
            name: stack.enter_context(
                processes.running(
                    processes.gateway(port),
                    port,
                    {**common_env(dynalite_url), **SERVERS[name], **endpoint.get(name, {})},
                )
            ).pid
            for name, port in ports.items()
        }
        urls = {name: f"http://127.0.0.1:{port}" for name, port in ports.items()}
        servers = Servers(urls=urls, pids=pids)
        rows = asyncio.run(cache_rows(servers, dynalite_url, delayed_url))
    print()
    print_table(rows)
    print()
    p50 = {row.name: row.p50_ms for row in rows}
    cached, direct = p50[f"gateway, cached +{DELAY_MS}ms"], p50[f"direct +{DELAY_MS}ms"]
    print(f"  1 user +{DELAY_MS}ms, p50 vs direct: gateway, cached {cached / direct:.2f}x")
    for users in USERS:
        cpu = {row.name: row.cpu_ms for row in rows if row.users == users and "+" not in row.name}
        floor = cpu["direct"]
        print(
            f"{users:>3} users, CPU vs direct: gateway {cpu['gateway'] / floor:.2f}x,"
            f" gateway, cached {cpu['gateway, cached'] / floor:.2f}x"
        )
