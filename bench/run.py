"""`make bench`: one table of the gateway's cost against dynalite, beside its floors.

Every row is measured in this run, on this machine: sequential requests after a warm-up,
bounded in count and time. Latency is the client's; CPU is the server process's own
(/proc), divided by the requests measured (the direct rows' CPU is this process's).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import aioboto3
import aiohttp

from bench import processes
from bench.direct import COLLECTION, PREFIX, read_users
from bench.report import DELAY_MS, Row, print_table, print_targets, print_throughput, write_json
from bench.report import targets as check_targets
from bench.seed import seed_users
from bench.server import FRONTEND_USER
from bench.throughput import Throughput, sustained
from gateway.auth.tokens import mint_token
from gateway.cli.examples import FRONTEND_QUERY
from gateway.resources import client_config, dynamodb_session, settled_collector
from gateway.settings import Settings
from loaders.dynamodb import Dynamo
from loaders.tables import TableNames, create_tables
from schema.clock import SystemClock
from schema.every_field import every_field
from schema.principal import DASHBOARD
from schema.root import build_schema
from tests.dynalite_server import DynaliteServer

USERS = [f"bench-{n:03d}" for n in range(100)]
SECRET = "bench-secret-" + "0" * 32
POOL = Settings().max_pool_connections
#: Each row: a warm-up, then at most MAX_REQUESTS requests and about MAX_SECONDS, at least
#: MIN_REQUESTS (the 100-user rows take seconds a request on a shared two-core box).
WARMUP = 3
MAX_REQUESTS = 200
MAX_SECONDS = 4.0
MIN_REQUESTS = 3

FULL_USER = every_field(build_schema()._schema, "User")
USERS_QUERY = f"query($ids: [ID!]!) {{ users(ids: $ids) {FULL_USER} }}"
USER_QUERY = f"query($id: ID!) {{ user(id: $id) {FULL_USER} }}"
#: Smaller selections, to see where the single-table collection stops paying.
RECURRING = "recurringExpenses { merchantUuid merchantName amount dueDate }"
SELECTIONS = {
    "1 prefix + 2 points": f"{{ {RECURRING} alert {{ alertSent }} income {{ amount }} }}",
    "2 prefixes": f"{{ {RECURRING} cashAdvanceScores {{ score scoredAt }} }}",
}


async def measure(
    row: Row, send: Callable[[], Awaitable[dict[str, Any] | None]], cpu: Callable[[], float]
) -> Row:
    for _ in range(WARMUP if row.users < 100 else 1):
        await send()
    started_cpu, started = cpu(), time.monotonic()
    while len(row.latencies) < MAX_REQUESTS and (
        len(row.latencies) < MIN_REQUESTS or time.monotonic() - started < MAX_SECONDS
    ):
        begin = time.perf_counter()
        cost = await send()
        row.latencies.append(time.perf_counter() - begin)
        if cost is not None:
            row.calls = cost["dynamodbCalls"]
            row.round_trips = cost["roundTrips"]
            row.read_units = cost["readCapacityUnits"]
    row.cpu_seconds = cpu() - started_cpu
    return row


def poster(
    http: aiohttp.ClientSession, url: str, body: dict[str, Any], headers: dict[str, str]
) -> Callable[[], Awaitable[dict[str, Any] | None]]:
    async def send() -> dict[str, Any] | None:
        async with http.post(url, json=body, headers=headers) as response:
            answer = await response.json()
        if response.status != 200 or answer.get("errors"):
            raise RuntimeError(f"{url} answered {response.status}: {str(answer)[:300]}")
        cost: dict[str, Any] | None = (answer.get("extensions") or {}).get("cost")
        return cost

    return send


def gateway_body(users: int, selection: str | None = None) -> dict[str, Any]:
    if selection is not None:
        query = f"query($ids: [ID!]!) {{ users(ids: $ids) {selection} }}"
        return {"query": query, "variables": {"ids": USERS[:users]}}
    if users == 1:
        return {"query": USER_QUERY, "variables": {"id": USERS[0]}}
    return {"query": USERS_QUERY, "variables": {"ids": USERS[:users]}}


def table_names() -> TableNames:
    return TableNames()


@dataclass
class Servers:
    """Base URL and pid of each gateway process."""

    urls: dict[str, str]
    pids: dict[str, int]


async def run_throughput(servers: Servers) -> list[Throughput]:
    """The README's frontend query, as its own user, through the gateway and the naive
    resolvers of the same process."""
    token = mint_token(SECRET, FRONTEND_USER, [], timedelta(hours=2), SystemClock())
    headers = {"Authorization": f"Bearer {token}"}
    body = {"query": FRONTEND_QUERY}
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=64)) as http:
        sends = {
            name: poster(http, servers.urls["main"] + path, body, headers)
            for name, path in (("gateway", "/graphql"), ("naive", "/bench/naive"))
        }
        results = await sustained(sends)
    print("  measured throughput", file=sys.stderr)
    return results


async def run_rows(servers: Servers, direct_endpoints: dict[str, str]) -> list[Row]:
    token = mint_token(SECRET, "bench", [DASHBOARD], timedelta(hours=2), SystemClock())
    gateway_headers = {"Authorization": f"Bearer {token}", "X-Insight-Cost": "1"}
    rows: list[Row] = []
    today = datetime.now(UTC).date()
    connector = aiohttp.TCPConnector(limit=4)
    async with aiohttp.ClientSession(connector=connector) as http:

        def server_cpu(server: str) -> Callable[[], float]:
            return lambda: processes.cpu_seconds(servers.pids[server])

        async def gateway_row(
            name: str, server: str, path: str, users: int, selection: str | None = None
        ) -> None:
            url = servers.urls[server] + path
            send = poster(http, url, gateway_body(users, selection), gateway_headers)
            rows.append(await measure(Row(name, users), send, server_cpu(server)))
            print(f"  measured {name} x{users}", file=sys.stderr)

        for users in (1, 10, 100):
            await gateway_row("gateway", "main", "/graphql", users)
        for users in (1, 10, 100):
            await gateway_row("gateway, graphql-core path", "core", "/graphql", users)
        for users in (1, 10):
            await gateway_row("gateway, tracing on", "traced", "/graphql", users)
        for users in (1, 10, 100):
            await gateway_row("gateway, prefix plan", "prefix", "/graphql", users)
        for label, selection in SELECTIONS.items():
            for plan, server in (("chosen", "main"), ("prefix", "prefix"), ("collection", "whole")):
                await gateway_row(f"{label}: {plan}", server, "/graphql", 10, selection)
        for users in (1, 10, 100):
            await gateway_row("naive", "main", "/bench/naive", users)
        trivial = poster(http, servers.urls["main"] + "/bench/trivial", {"query": "{ hello }"}, {})
        rows.append(await measure(Row("trivial", 0), trivial, server_cpu("main")))
        typename = poster(
            http, servers.urls["main"] + "/graphql", {"query": "{ __typename }"}, gateway_headers
        )
        rows.append(await measure(Row("trivial via /graphql", 0), typename, server_cpu("main")))
        for users in (1, 10, 100):
            await gateway_row(f"gateway +{DELAY_MS}ms", "delayed", "/graphql", users)
        await gateway_row(f"naive +{DELAY_MS}ms", "delayed", "/bench/naive", 1)

    # The gateway's own client settings (its parser, no parameter validation, keep-alive,
    # fixed User-Agent) and, like a started worker, its collector settled: the floor.
    config = client_config(Settings())
    with settled_collector():
        directs = [
            ("", direct_endpoints[""], dynamodb_session(), (COLLECTION, PREFIX)),
            (", stock parser", direct_endpoints[""], aioboto3.Session(), (COLLECTION,)),
            (f" +{DELAY_MS}ms", direct_endpoints["delayed"], dynamodb_session(), (COLLECTION,)),
        ]
        for label, endpoint, session, plans in directs:
            async with session.client(
                "dynamodb", endpoint_url=endpoint, region_name="us-east-1", config=config
            ) as client:
                slots = asyncio.Semaphore(POOL)
                for plan in plans:
                    for users in (1, 10, 100):
                        name = "direct" + (", prefix plan" if plan == PREFIX else "") + label
                        row = Row(name, users)

                        async def send(
                            users: int = users, plan: str = plan, slots: asyncio.Semaphore = slots
                        ) -> dict[str, Any]:
                            tally = await read_users(
                                client, table_names(), USERS[:users], today, plan, slots
                            )
                            return {
                                "dynamodbCalls": tally.calls,
                                "roundTrips": 1,
                                "readCapacityUnits": tally.read_capacity_units,
                            }

                        rows.append(await measure(row, send, time.process_time))
                        print(f"  measured {row.name} x{users}", file=sys.stderr)
    return rows


async def prepare(endpoint: str) -> None:
    session = aioboto3.Session()
    async with session.client("dynamodb", endpoint_url=endpoint, region_name="us-east-1") as client:
        await create_tables(client, table_names(), ttl=False)
        dynamo = Dynamo(client, table_names())
        started = time.monotonic()
        count = await seed_users(dynamo, USERS, datetime.now(UTC), Settings())
        print(
            f"seeded {count} items for {len(USERS)} users in {time.monotonic() - started:.1f}s",
            file=sys.stderr,
        )


async def profile(endpoint: str) -> None:
    from bench.profile import profile_gateway

    await profile_gateway(endpoint, SECRET, USERS[:10], USERS_QUERY)


def main() -> None:
    os.environ.setdefault("AWS_ACCESS_KEY_ID", "bench")
    os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "bench")
    os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")
    dynalite = DynaliteServer()  # the tests' own dynalite (tests/dynalite, pinned by npm)
    dynalite.start()
    try:
        run(dynalite.port)
    finally:
        dynalite.stop()


#: The gateway processes: name, then what each sets beside the common environment.
SERVERS: dict[str, dict[str, str]] = {
    "main": {},
    "core": {"INSIGHT_COMPILED_EXECUTION": "false"},
    "prefix": {"BENCH_PLAN": "prefix"},
    "whole": {"BENCH_PLAN": "collection"},
    "delayed": {},
    "traced": {"INSIGHT_OTEL_ENABLED": "true"},
}


def run(dynalite_port: int) -> None:
    proxy_port, sink_port = processes.free_port(), processes.free_port()
    ports = {name: processes.free_port() for name in SERVERS}
    dynalite_url = f"http://127.0.0.1:{dynalite_port}"
    delayed_url = f"http://127.0.0.1:{proxy_port}"
    env = {"INSIGHT_AUTH_HS256_SECRET": SECRET, "INSIGHT_DYNAMODB_ENDPOINT_URL": dynalite_url}
    extra = {
        "delayed": {"INSIGHT_DYNAMODB_ENDPOINT_URL": delayed_url},
        "traced": {"OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{sink_port}"},
    }
    with (
        processes.running(processes.delay_proxy(proxy_port, dynalite_port, DELAY_MS), proxy_port),
        processes.running(processes.otlp_sink(sink_port), sink_port),
        contextlib.ExitStack() as stack,
    ):
        asyncio.run(prepare(dynalite_url))
        pids = {
            name: stack.enter_context(
                processes.running(
                    processes.gateway(ports[name]),
                    ports[name],
                    {**env, **settings, **extra.get(name, {})},
                )
            ).pid
            for name, settings in SERVERS.items()
        }
        servers = Servers(
            urls={name: f"http://127.0.0.1:{port}" for name, port in ports.items()}, pids=pids
        )
        rows = asyncio.run(run_rows(servers, {"": dynalite_url, "delayed": delayed_url}))
        throughput = asyncio.run(run_throughput(servers))
    print()
    print_table(rows)
    print_throughput(throughput)
    checks = check_targets(rows, throughput)
    print_targets(checks)
    write_json(rows, throughput, checks)
    print()
    asyncio.run(profile(dynalite_url))


if __name__ == "__main__":
    main()
