"""`make bench`: one table of the gateway's cost against dynalite, beside its floors.

Every row is measured in this run, on this machine: sequential requests after a warm-up,
bounded in count and time. Latency is the client's; CPU is the server process's own
(/proc), divided by the requests measured (the direct rows' CPU is this process's).
"""

from __future__ import annotations

import asyncio
import math
import os
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import aioboto3
import aiohttp
from aiobotocore.config import AioConfig

from bench import processes
from bench.direct import COLLECTION, PREFIX, read_users
from bench.seed import seed_users
from gateway.auth.tokens import mint_token
from gateway.resources import dynamodb_session
from gateway.settings import Settings
from loaders.dynamodb import Dynamo
from loaders.tables import TableNames, create_tables
from schema.clock import SystemClock
from schema.every_field import every_field
from schema.principal import DASHBOARD
from schema.root import build_schema
from tests.dynalite_server import DynaliteServer

USERS = [f"bench-{n:03d}" for n in range(100)]
DELAY_MS = 20
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


@dataclass
class Row:
    name: str
    users: int
    latencies: list[float] = field(default_factory=list)
    cpu_seconds: float = 0.0
    calls: int | None = None
    round_trips: int | None = None
    read_units: float | None = None

    @property
    def p50_ms(self) -> float:
        return statistics.median(self.latencies) * 1000

    @property
    def p99_ms(self) -> float:
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, math.ceil(0.99 * len(ordered)) - 1)] * 1000

    @property
    def cpu_ms(self) -> float:
        return self.cpu_seconds / len(self.latencies) * 1000


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
            await gateway_row("gateway, prefix plan", "prefix", "/graphql", users)
        for label, selection in SELECTIONS.items():
            for plan, server in (("chosen", "main"), ("prefix", "prefix"), ("collection", "whole")):
                await gateway_row(f"{label}: {plan}", server, "/graphql", 10, selection)
        for users in (1, 10, 100):
            await gateway_row("naive resolvers", "main", "/bench/naive", users)
        trivial = poster(http, servers.urls["main"] + "/bench/trivial", {"query": "{ hello }"}, {})
        rows.append(await measure(Row("trivial strawberry", 0), trivial, server_cpu("main")))
        typename = poster(
            http, servers.urls["main"] + "/graphql", {"query": "{ __typename }"}, gateway_headers
        )
        rows.append(await measure(Row("trivial via /graphql", 0), typename, server_cpu("main")))
        for users in (1, 10, 100):
            await gateway_row(f"gateway +{DELAY_MS}ms", "delayed", "/graphql", users)
        await gateway_row(f"naive +{DELAY_MS}ms", "delayed", "/bench/naive", 1)

    config = AioConfig(max_pool_connections=POOL)
    # The gateway's own client (its fast parser), both plans; botocore's stock parser for
    # comparison; and the delayed endpoint.
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
                    row = Row(f"direct aioboto3, {plan}{label}", users)

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


def print_table(rows: list[Row]) -> None:
    header = (
        f"{'read':<34}{'users':>6}{'calls':>7}{'trips':>6}{'RCU':>8}"
        f"{'p50 ms':>9}{'p99 ms':>9}{'CPU ms':>9}{'CPU/user':>9}{'n':>5}"
    )
    print(header)
    print("-" * len(header))
    for row in rows:
        per_user = f"{row.cpu_ms / row.users:9.2f}" if row.users else f"{'':>9}"
        print(
            f"{row.name:<34}{row.users:>6}{_fmt(row.calls):>7}{_fmt(row.round_trips):>6}"
            f"{_fmt(row.read_units):>8}{row.p50_ms:9.1f}{row.p99_ms:9.1f}{row.cpu_ms:9.2f}"
            f"{per_user}{len(row.latencies):>5}"
        )


def _fmt(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:g}"


def print_targets(rows: list[Row]) -> None:
    def find(name: str, users: int) -> Row:
        return next(r for r in rows if r.name == name and r.users == users)

    trivial = find("trivial strawberry", 0)
    delayed = find(f"gateway +{DELAY_MS}ms", 1)
    direct_delayed = find(f"direct aioboto3, {COLLECTION} +{DELAY_MS}ms", 1)
    full = find("gateway", 1)
    hundred = find("gateway", 100)
    formula = 3 * 100 + math.ceil(3 * 100 / 100)
    checks = [
        (
            f"full-User p50 under +{DELAY_MS}ms vs direct",
            delayed.p50_ms / direct_delayed.p50_ms,
            1.25,
        ),
        ("full-User CPU vs trivial query CPU", full.cpu_ms / trivial.cpu_ms, 3.0),
        ("CPU per user at 100 users vs trivial", hundred.cpu_ms / 100 / trivial.cpu_ms, 1.0),
        (
            f"calls for 100 users vs 3N+ceil(3N/100) = {formula}",
            (hundred.calls or 0) / formula,
            1.0,
        ),
    ]
    print()
    print(f"{'target':<56}{'ratio':>8}{'limit':>7}  met")
    for name, ratio, limit in checks:
        print(f"{name:<56}{ratio:8.2f}{limit:7.2f}  {'yes' if ratio <= limit else 'NO'}")


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


def run(dynalite_port: int) -> None:
    proxy_port = processes.free_port()
    ports = {name: processes.free_port() for name in ("main", "prefix", "whole", "delayed")}
    dynalite_url = f"http://127.0.0.1:{dynalite_port}"
    delayed_url = f"http://127.0.0.1:{proxy_port}"
    env = {"INSIGHT_AUTH_HS256_SECRET": SECRET, "INSIGHT_DYNAMODB_ENDPOINT_URL": dynalite_url}
    with processes.running(processes.delay_proxy(proxy_port, dynalite_port, DELAY_MS), proxy_port):
        asyncio.run(prepare(dynalite_url))
        with (
            processes.running(processes.gateway(ports["main"]), ports["main"], env) as main_server,
            processes.running(
                processes.gateway(ports["prefix"]),
                ports["prefix"],
                {**env, "BENCH_PLAN": "prefix"},
            ) as prefix_server,
            processes.running(
                processes.gateway(ports["whole"]),
                ports["whole"],
                {**env, "BENCH_PLAN": "collection"},
            ) as whole_server,
            processes.running(
                processes.gateway(ports["delayed"]),
                ports["delayed"],
                {**env, "INSIGHT_DYNAMODB_ENDPOINT_URL": delayed_url},
            ) as delayed_server,
        ):
            servers = Servers(
                urls={name: f"http://127.0.0.1:{port}" for name, port in ports.items()},
                pids={
                    "main": main_server.pid,
                    "prefix": prefix_server.pid,
                    "whole": whole_server.pid,
                    "delayed": delayed_server.pid,
                },
            )
            rows = asyncio.run(run_rows(servers, {"": dynalite_url, "delayed": delayed_url}))
        print()
        print_table(rows)
        print_targets(rows)
        print()
        asyncio.run(profile(dynalite_url))


if __name__ == "__main__":
    main()
