"""`make bench`: one table of the gateway's cost against dynalite, beside its floors.

Every row is measured in this run, on this machine: sequential requests after a warm-up,
bounded in count and time. Latency is the client's; CPU is the server process's own
(/proc), divided by the requests measured (the direct rows' CPU is this process's).
"""

from __future__ import annotations

import asyncio
import contextlib
import io
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
from bench.answered import answer_body
from bench.call_cost import call_costs
from bench.direct import COLLECTION, PREFIX, read_users
from bench.frontend import frontend_throughput, replayer_stats
from bench.poster import poster
from bench.report import (
    ANSWERED,
    DELAY_MS,
    FLOOR,
    SERVED,
    Row,
    print_served,
    print_table,
    print_targets,
    print_throughput,
    throughput_targets,
    write_json,
    write_page,
)
from bench.report import targets as check_targets
from bench.server import FRONTEND_USER
from gateway.auth.tokens import mint_token
from gateway.cli.examples import FRONTEND_QUERY
from gateway.resources import client_config, settled_collector
from gateway.settings import Settings
from loaders.dynamodb import Dynamo
from loaders.tables import TableNames, create_tables
from loaders.wire.client import LeanClient
from schema.clock import SystemClock
from schema.principal import DASHBOARD
from schema.root import build_schema
from support.dynalite_server import DynaliteServer
from support.every_field import every_field
from support.seed import seed_users

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


Send = Callable[[], Awaitable[dict[str, Any] | None]]
CpuClock = Callable[[], float]


async def measure_together(measured: list[tuple[Row, Send, CpuClock]]) -> list[Row]:
    """Rows compared by a target, measured in turns (one request of each, again and
    again): a shared machine's load drifts over minutes, and so then affects them alike.
    CPU is read around each request of its own row."""
    users = max(row.users for row, _, _ in measured)
    for _, send, _ in measured:
        for _ in range(WARMUP if users < 100 else 1):
            await send()
    started = time.monotonic()
    while len(measured[0][0].latencies) < MAX_REQUESTS and (
        len(measured[0][0].latencies) < MIN_REQUESTS
        or time.monotonic() - started < MAX_SECONDS * len(measured)
    ):
        for row, send, cpu in measured:
            before = cpu()
            begin = time.perf_counter()
            cost = await send()
            row.latencies.append(time.perf_counter() - begin)
            row.cpu_seconds += cpu() - before
            if cost is not None:
                row.calls = cost["dynamodbCalls"]
                row.round_trips = cost["roundTrips"]
                row.read_units = cost["readCapacityUnits"]
    for row, _, _ in measured:
        print(f"  measured {row.name} x{row.users}", file=sys.stderr)
    return [row for row, _, _ in measured]


def direct_sender(
    client: Any,
    users: int,
    plan: str,
    slots: asyncio.Semaphore,
    *,
    answered: bool = False,
    botocore: bool = False,
) -> Send:
    """The direct floor's reads, sent as the gateway sends them (by the lean client;
    `botocore`: through the client, as the stock parser's row reads); `answered`: then
    answered as an endpoint must (bench/answered.py: every item decoded, the read rules,
    the JSON written)."""
    today = datetime.now(UTC).date()
    lean = None if botocore else LeanClient(client)

    async def send() -> dict[str, Any]:
        reads = await read_users(
            client, table_names(), USERS[:users], today, plan, slots, lean=lean
        )
        if answered:
            answer_body(reads, table_names(), USERS[:users], datetime.now(UTC))
        return {
            "dynamodbCalls": reads.calls,
            "roundTrips": 1,
            "readCapacityUnits": reads.read_capacity_units,
        }

    return send


async def run_rows(servers: Servers, direct_endpoints: dict[str, str]) -> list[Row]:
    token = mint_token(SECRET, "bench", [DASHBOARD], timedelta(hours=2), SystemClock())
    gateway_headers = {"Authorization": f"Bearer {token}", "X-Insight-Cost": "1"}
    rows: list[Row] = []
    # The direct floors: the gateway's own client settings (its parser, no parameter
    # validation, keep-alive, fixed User-Agent) and, like a started worker, this process's
    # collector settled; botocore's stock parser beside it for comparison.
    config = client_config(Settings())
    async with contextlib.AsyncExitStack() as stack:
        stack.enter_context(settled_collector())
        http = await stack.enter_async_context(
            aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=4))
        )
        directs = {
            name: await stack.enter_async_context(
                session.client(
                    "dynamodb", endpoint_url=endpoint, region_name="us-east-1", config=config
                )
            )
            for name, session, endpoint in (
                ("direct", aioboto3.Session(), direct_endpoints[""]),
                ("stock", aioboto3.Session(), direct_endpoints[""]),
                ("delayed", aioboto3.Session(), direct_endpoints["delayed"]),
            )
        }
        slots = asyncio.Semaphore(POOL)

        def gateway(
            name: str, server: str, path: str, users: int, selection: str | None = None
        ) -> tuple[Row, Send, CpuClock]:
            url = servers.urls[server] + path
            send = poster(http, url, gateway_body(users, selection), gateway_headers)
            pid = servers.pids[server]
            return Row(name, users), send, lambda: processes.cpu_seconds(pid)

        def direct(
            name: str, client: str, users: int, plan: str, *, answered: bool = False
        ) -> tuple[Row, Send, CpuClock]:
            send = direct_sender(
                directs[client], users, plan, slots, answered=answered, botocore=client == "stock"
            )
            return Row(name, users), send, time.process_time

        def direct_answered(users: int) -> tuple[Row, Send, CpuClock]:
            return direct(ANSWERED, "direct", users, COLLECTION, answered=True)

        delayed = f"+{DELAY_MS}ms"
        groups = [
            [
                gateway("gateway", "main", "/graphql", 1),
                gateway("gateway, graphql-core path", "core", "/graphql", 1),
                gateway("gateway, cached", "cached", "/graphql", 1),
                direct("direct", "direct", 1, COLLECTION),
                direct_answered(1),
                gateway(SERVED, "main", "/bench/answered", 1),
            ],
            [
                gateway("gateway", "main", "/graphql", 10),
                gateway("gateway, tracing on", "traced", "/graphql", 10),
                gateway("gateway, graphql-core path", "core", "/graphql", 10),
                gateway("gateway, cached", "cached", "/graphql", 10),
                direct("direct", "direct", 10, COLLECTION),
                direct_answered(10),
                gateway(SERVED, "main", "/bench/answered", 10),
            ],
            [
                gateway("gateway", "main", "/graphql", 100),
                gateway("gateway, graphql-core path", "core", "/graphql", 100),
                gateway("gateway, cached", "cached", "/graphql", 100),
                direct("direct", "direct", 100, COLLECTION),
                direct_answered(100),
                gateway(SERVED, "main", "/bench/answered", 100),
            ],
            [
                gateway(f"gateway {delayed}", "delayed", "/graphql", 1),
                gateway(f"gateway, cached {delayed}", "cached_delayed", "/graphql", 1),
                direct(f"direct {delayed}", "delayed", 1, COLLECTION),
            ],
            [
                gateway(f"gateway {delayed}", "delayed", "/graphql", 10),
                direct(f"direct {delayed}", "delayed", 10, COLLECTION),
            ],
            [
                gateway(f"gateway {delayed}", "delayed", "/graphql", 100),
                direct(f"direct {delayed}", "delayed", 100, COLLECTION),
            ],
            *([gateway("naive", "main", "/bench/naive", users)] for users in (1, 10, 100)),
            [gateway("gateway, tracing on", "traced", "/graphql", 1)],
            *(
                [
                    gateway("gateway, prefix plan", "prefix", "/graphql", users),
                    direct("direct, prefix plan", "direct", users, PREFIX),
                    direct("direct, stock parser", "stock", users, COLLECTION),
                ]
                for users in (1, 10, 100)
            ),
            *(
                [
                    gateway(f"{label}: {plan}", server, "/graphql", 10, selection)
                    for plan, server in (
                        ("chosen", "main"),
                        ("prefix", "prefix"),
                        ("collection", "whole"),
                    )
                ]
                for label, selection in SELECTIONS.items()
            ),
            [gateway(f"naive {delayed}", "delayed", "/bench/naive", 1)],
        ]
        for group in groups:
            rows += await measure_together(group)
        trivial = poster(http, servers.urls["main"] + "/bench/trivial", {"query": "{ hello }"}, {})
        main_cpu = servers.pids["main"]
        rows += await measure_together(
            [
                (Row("trivial", 0), trivial, lambda: processes.cpu_seconds(main_cpu)),
                (
                    Row(FLOOR, 0),
                    poster(
                        http,
                        servers.urls["main"] + "/bench/floor",
                        {"query": "{ __typename }"},
                        gateway_headers,
                    ),
                    lambda: processes.cpu_seconds(main_cpu),
                ),
                (
                    Row("trivial via /graphql", 0),
                    poster(
                        http,
                        servers.urls["main"] + "/graphql",
                        {"query": "{ __typename }"},
                        gateway_headers,
                    ),
                    lambda: processes.cpu_seconds(main_cpu),
                ),
            ]
        )
    return rows


async def prepare(endpoint: str) -> None:
    session = aioboto3.Session()
    async with session.client("dynamodb", endpoint_url=endpoint, region_name="us-east-1") as client:
        await create_tables(client, table_names(), ttl=False, streams=False)
        dynamo = Dynamo(client, table_names())
        started = time.monotonic()
        count = await seed_users(dynamo, USERS, datetime.now(UTC), Settings())
        print(
            f"seeded {count} items for {len(USERS)} users in {time.monotonic() - started:.1f}s",
            file=sys.stderr,
        )


async def profile_frontend(replayer_url: str) -> str:
    """The frontend request's profile by layer, over the replayer (printed later, with the
    other figures); a call the replayer refuses stops the run, as in the throughput."""
    from bench.profile import profile_frontend as profiled

    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        await profiled(replayer_url, SECRET, FRONTEND_USER, FRONTEND_QUERY)
    refused = (await replayer_stats(replayer_url))["refused"]
    if refused:
        raise RuntimeError(f"the replayer refused {refused} unrecorded calls (its stderr)")
    return printed.getvalue()


async def profile(endpoint: str) -> None:
    from bench.profile import profile_gateway

    await profile_gateway(endpoint, SECRET, USERS[:10], USERS_QUERY)


def main(argv: list[str] | None = None) -> None:
    """`python -m bench`: everything; `... throughput`: the frontend's throughput alone."""
    only_throughput = (sys.argv[1:] if argv is None else argv) == ["throughput"]
    os.environ.setdefault("AWS_ACCESS_KEY_ID", "bench")
    os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "bench")
    os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")
    dynalite = DynaliteServer()  # the tests' own dynalite (tests/dynalite, pinned by npm)
    dynalite.start()
    try:
        run(dynalite.port, dynalite.pid, only_throughput)
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
    "replayed": {},
    # The coherent cache, its feed kept whole by the bench's heartbeat (no streams here).
    "cached": {"INSIGHT_CACHE": "on", "BENCH_FEED_HEARTBEAT": "1"},
    "cached_delayed": {"INSIGHT_CACHE": "on", "BENCH_FEED_HEARTBEAT": "1"},
}


def common_env(dynalite_url: str) -> dict[str, str]:
    """Every gateway process's environment, before its own settings."""
    return {
        "INSIGHT_AUTH_HS256_SECRET": SECRET,
        "INSIGHT_DYNAMODB_ENDPOINT_URL": dynalite_url,
        # Budgets are charged as in production, but never exhausted: the bench sends one
        # user's frontend query hundreds of times a second, far over a real user's budget.
        # A one-second window keeps as few points in the moving window as a real budget
        # (limits stores one entry per point: a minute of this rate would hold ~10^5).
        "INSIGHT_RATE_LIMIT_USER": "999999999/second",
        "INSIGHT_RATE_LIMIT_DASHBOARD": "999999999/second",
    }


def run(dynalite_port: int, dynalite_pid: int, only_throughput: bool = False) -> None:
    proxy_port, sink_port = processes.free_port(), processes.free_port()
    replayer_port = processes.free_port()
    started = {"main", "replayed", "cached"} if only_throughput else SERVERS.keys()
    ports = {name: processes.free_port() for name in started}
    dynalite_url = f"http://127.0.0.1:{dynalite_port}"
    delayed_url = f"http://127.0.0.1:{proxy_port}"
    replayer_url = f"http://127.0.0.1:{replayer_port}"
    env = common_env(dynalite_url)
    extra = {
        "replayed": {"INSIGHT_DYNAMODB_ENDPOINT_URL": replayer_url},
        "delayed": {"INSIGHT_DYNAMODB_ENDPOINT_URL": delayed_url},
        "cached_delayed": {"INSIGHT_DYNAMODB_ENDPOINT_URL": delayed_url},
        "traced": {"OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{sink_port}"},
    }
    with (
        processes.running(processes.delay_proxy(proxy_port, dynalite_port, DELAY_MS), proxy_port),
        processes.running(processes.otlp_sink(sink_port), sink_port),
        processes.running(processes.replayer(replayer_port, dynalite_url), replayer_port) as replay,
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
            if name in started
        }
        servers = Servers(
            urls={name: f"http://127.0.0.1:{port}" for name, port in ports.items()}, pids=pids
        )
        if not only_throughput:
            rows = asyncio.run(run_rows(servers, {"": dynalite_url, "delayed": delayed_url}))
        throughput, replay_cost = asyncio.run(
            frontend_throughput(
                SECRET, servers.urls, servers.pids, dynalite_pid, (replayer_url, replay.pid)
            )
        )
        print("  measured throughput", file=sys.stderr)
        frontend_profile = asyncio.run(call_costs(dynalite_url, table_names(), USERS[0]))
        frontend_profile += asyncio.run(profile_frontend(replayer_url))
    if only_throughput:
        print_throughput(throughput, replay_cost)
        print_targets(throughput_targets(throughput))
        print(frontend_profile)
        return
    print()
    print_table(rows)
    print_served(rows)
    print_throughput(throughput, replay_cost)
    checks = check_targets(rows, throughput)
    print_targets(checks)
    write_json(rows, throughput, checks, replay_cost)
    write_page(rows)
    print()
    print(frontend_profile)
    asyncio.run(profile(dynalite_url))


if __name__ == "__main__":
    main()
