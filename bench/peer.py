"""`python -m bench peer`: the gateway beside the Node peer (bench/peers/apollo/: Apollo
Server 5, graphql 16, DataLoader 2, the AWS SDK v3) over one dynalite, and beside it the
gateway again with read units priced at nothing (its access plan by CPU alone).

First each gateway and the peer answer the frontend query for every bench user and the
edge users below, and the answers must be equal after JSON canonicalisation, or the run
stops. Then, in alternating turns: the server CPU per request (and dynalite's beside it),
the best rate with p99 under 50 ms and the p99 at 8 clients for the frontend query; server
CPU and p50 for the 100-user dashboard (`users(ids:)` with every User field, as `make
bench` reads it)."""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from functools import partial
from typing import Any

import aioboto3
import aiohttp

from bench import processes
from bench.poster import pool, poster
from bench.run import SECRET, USERS, USERS_QUERY, common_env, prepare, table_names
from bench.throughput import Endpoint, step
from gateway.auth.tokens import mint_token
from gateway.cli.examples import FRONTEND_QUERY
from gateway.resources import settled_collector
from loaders import entities as e
from loaders.codec import format_instant, months_back
from loaders.dynamodb import Dynamo
from loaders.tables import Table
from schema.clock import SystemClock
from schema.principal import DASHBOARD
from support.dynalite_server import DynaliteServer

PEER = processes.ROOT / "bench" / "peers" / "apollo"
#: Users whose answers test the rules' edges (each seeded by `seed_edges`).
EDGE_USERS = ("edge-yesterday", "edge-expired", "edge-ties", "edge-decimals", "edge-unknown")
#: The dashboard answers compared: the bench's users, the edge users, a duplicate and an
#: id with no rows (order and duplicates kept).
DASHBOARD_IDS = [*USERS[:90], *EDGE_USERS, USERS[3], "edge-never-seen"]
DASHBOARD_ROUNDS = 5
ROUNDS = 9
TURN = 20
#: Requests before any figure: V8 compiles the peer's hot paths after some hundreds.
WARMUP = 300
CLIENTS = (1, 2, 4, 8, 16)
GATEWAY = "gateway"
#: The gateway again with read units priced at nothing: the access plan by CPU alone (each
#: entity's prefix read), its tail and rate beside the default prices' plan.
CPU_PLAN = "gateway, reads free"
P99_LIMIT_MS = 50.0


def peer_ready() -> bool:
    return (PEER / "node_modules" / ".package-lock.json").exists()


@contextmanager
def peer(port: int, dynalite_url: str) -> Iterator[subprocess.Popen[bytes]]:
    env = {"PORT": str(port), "DYNAMODB_ENDPOINT": dynalite_url, "AWS_REGION": "us-east-1"}
    with processes.running(["node", str(PEER / "server.mjs")], port, env) as process:
        yield process


def _expense(user_id: str, mine: str, n: int, name: str, amount: str, due: str) -> dict[str, Any]:
    key = e.RECURRING_EXPENSE.key(
        user_id=user_id, last_mine=mine, merchant=f"m-{n}", frequency="monthly", amount=amount
    )
    return {
        "PK": key.pk,
        "SK": key.sk,
        "type": "recurring",
        "last_mine": mine,
        "merchant_uuid": f"m-{n}",
        "merchant_name": name,
        "frequency": "monthly",
        "amount": Decimal(amount),
        "due_date": due,
    }


def edge_items(now: datetime) -> list[tuple[Table, dict[str, Any]]]:
    """Yesterday's payday, expired rows, ties in the expenses' order, odd decimals; the
    unknown user has no rows at all."""
    today, yesterday = now.date(), now.date() - timedelta(days=1)
    epoch = int(now.timestamp())
    mine = format_instant(now - timedelta(hours=2))
    items: list[tuple[Table, dict[str, Any]]] = []
    payday = e.PAYDAY.key(user_id="edge-yesterday")
    items.append(
        (
            Table.PAVE,
            {
                "PK": payday.pk,
                "SK": payday.sk,
                "prediction_date": yesterday.isoformat(),
                "next_date": today.isoformat(),
                "frequency": "weekly",
                "source": "pave",
            },
        )
    )
    for user_id in ("edge-expired", "edge-ties", "edge-decimals"):
        at = e.MINE.key(user_id=user_id, mined_at=now - timedelta(hours=2))
        items.append((Table.PAVE, {"PK": at.pk, "SK": at.sk, "mined_at": mine}))
    month = months_back(today, 1)[0]
    expired = e.SAVINGS_MONTH.key(user_id="edge-expired", month=month)
    items.append(
        (
            Table.PAVE,
            {
                "PK": expired.pk,
                "SK": expired.sk,
                "total_available": Decimal("5"),
                "accounts": [],
                "ttl": epoch - 1,
            },
        )
    )
    gone = _expense("edge-expired", mine, 1, "Gone", "9.99", today.isoformat())
    items.append((Table.PAVE, {**gone, "ttl": epoch}))
    kept = _expense("edge-expired", mine, 2, "Kept", "1.5", today.isoformat())
    items.append((Table.PAVE, {**kept, "ttl": epoch + 3600}))
    for n, (name, due) in enumerate(
        (
            ("Same", "2026-12-05"),
            ("Same", "2026-12-05"),
            ("Alpha", "2026-12-05"),
            ("Zed", "2026-12-01"),
        )
    ):
        items.append((Table.PAVE, _expense("edge-ties", mine, n, name, f"{n + 1}", due)))
    for n, amount in enumerate(("1.005", "100", "0.1", "-0", "12345678901234567890.123456")):
        items.append(
            (Table.PAVE, _expense("edge-decimals", mine, n, f"D{n}", amount, "2026-12-09"))
        )
    alert = e.ALERT.key(user_id="edge-decimals")
    items.append(
        (
            Table.PAVE,
            {
                "PK": alert.pk,
                "SK": alert.sk,
                "alert_sent": True,
                "updated_date": "2026-12-01T10:00:00.123400+02:00",
                "balance_setting": Decimal("0.10"),
            },
        )
    )
    settings = e.BALANCE_SETTINGS.key(user_id="edge-decimals")
    items.append((Table.BALANCE_SETTINGS, {"user_id": settings.pk, "low_balance_alert": None}))
    return items


async def seed_edges(endpoint: str, now: datetime) -> None:
    async with aioboto3.Session().client(
        "dynamodb", endpoint_url=endpoint, region_name="us-east-1"
    ) as client:
        await Dynamo(client, table_names()).put_many(edge_items(now))


def canonical(answer: Any) -> str:
    return json.dumps(answer, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


async def answer(
    http: aiohttp.ClientSession, url: str, body: dict[str, Any], sub: str, roles: list[str]
) -> Any:
    token = mint_token(SECRET, sub, roles, timedelta(hours=1), SystemClock())
    async with http.post(url, json=body, headers={"Authorization": f"Bearer {token}"}) as sent:
        return await sent.json()


async def frontend_answer(http: aiohttp.ClientSession, url: str, user_id: str) -> Any:
    return await answer(http, url, {"query": FRONTEND_QUERY}, user_id, [])


def dashboard_body(ids: list[str]) -> dict[str, Any]:
    return {"query": USERS_QUERY, "variables": {"ids": ids}}


async def differences(gateway_url: str, peer_url: str, users: list[str]) -> list[str]:
    """Each user whose two frontend answers differ, and the dashboard of `DASHBOARD_IDS`
    when its two answers differ, with both answers."""
    found = []
    async with aiohttp.ClientSession() as http:
        for user_id in users:
            ours = canonical(await frontend_answer(http, gateway_url, user_id))
            theirs = canonical(await frontend_answer(http, peer_url, user_id))
            if ours != theirs:
                found.append(f"{user_id}:\n  gateway {ours}\n  peer    {theirs}")
        body = dashboard_body(DASHBOARD_IDS)
        ours = canonical(await answer(http, gateway_url, body, "bench", [DASHBOARD]))
        theirs = canonical(await answer(http, peer_url, body, "bench", [DASHBOARD]))
        if ours != theirs:
            at = next(n for n, (a, b) in enumerate(zip(ours, theirs, strict=False)) if a != b)
            found.append(
                f"dashboard, from character {at}:\n  gateway {ours[at - 300 : at + 300]}"
                f"\n  peer    {theirs[at - 300 : at + 300]}"
            )
    return found


async def compare(urls: dict[str, str], pids: dict[str, int], dynalite_pid: int) -> None:
    token = mint_token(SECRET, USERS[0], [], timedelta(hours=2), SystemClock())
    headers = {"Authorization": f"Bearer {token}"}
    body = {"query": FRONTEND_QUERY}
    async with aiohttp.ClientSession(connector=pool(64)) as http:
        sends = {name: poster(http, url, body, headers) for name, url in urls.items()}
        cpu: dict[str, list[float]] = {name: [] for name in urls}
        store: dict[str, list[float]] = {name: [] for name in urls}
        for name in urls:
            for _ in range(WARMUP):
                await sends[name]()
        for _ in range(ROUNDS):
            for name, send in sends.items():
                before = processes.cpu_seconds(pids[name])
                before_store = processes.cpu_seconds(dynalite_pid)
                for _ in range(TURN):
                    await send()
                cpu[name].append((processes.cpu_seconds(pids[name]) - before) / TURN * 1000)
                spent = processes.cpu_seconds(dynalite_pid) - before_store
                store[name].append(spent / TURN * 1000)
        steps: dict[str, dict[int, Any]] = {name: {} for name in urls}
        for clients in CLIENTS:
            for name, send in sends.items():
                clocks = {
                    "worker": partial(processes.cpu_seconds, pids[name]),
                    "dynalite": partial(processes.cpu_seconds, dynalite_pid),
                }
                steps[name][clients] = await step(Endpoint(send, "dynalite", clocks), clients)
    print("\nThe frontend query, the gateway beside the Node peer (alternating turns)")
    header(list(urls))
    medians = {name: statistics.median(values) for name, values in cpu.items()}
    line(f"server CPU per request (median of {ROUNDS})", medians, "ms")
    # The box's other load: dynalite answers both, and its CPU grows with the items read.
    line("dynalite's CPU per request (beside)", medians_of(store), "ms")
    best = {
        name: max(
            (s.per_second for s in by_clients.values() if s.p99_ms < P99_LIMIT_MS), default=0.0
        )
        for name, by_clients in steps.items()
    }
    line("best rate with p99 < 50 ms", best, "/s")
    line("p99 at 8 clients", {name: steps[name][8].p99_ms for name in steps}, "ms")
    print(f"\n{'clients':<10}rate, p99, server CPU, dynalite CPU, by server")
    for clients in CLIENTS:
        cells = (steps[name][clients] for name in steps)
        row = (
            f"{s.per_second:.1f}/s {s.p99_ms:.1f} ms {s.cpu_ms['worker']:.2f} ms "
            f"{s.cpu_ms['dynalite']:.2f} ms"
            for s in cells
        )
        print(f"{clients:<10}" + "".join(f"{cell:>40}" for cell in row))
    print("\nThe 100-user dashboard (every User field), in alternating turns")
    header(list(urls))
    dashboard = await dashboard_figures(urls, pids)
    cpu_ms = {name: figures[0] for name, figures in dashboard.items()}
    line(f"server CPU per request (median of {DASHBOARD_ROUNDS})", cpu_ms, "ms")
    line("p50", {name: figures[1] for name, figures in dashboard.items()}, "ms")


def medians_of(values: dict[str, list[float]]) -> dict[str, float]:
    return {name: statistics.median(taken) for name, taken in values.items()}


def header(names: list[str]) -> None:
    ratios = [f"{name} ÷ peer" for name in names if name != "peer"]
    print(f"{'figure':<40}" + "".join(f"{name:>28}" for name in [*names, *ratios]))


def line(figure: str, values: dict[str, float], unit: str) -> None:
    """One figure of every server, then each gateway's ratio to the peer's."""
    theirs = values["peer"]
    cells = [f"{value:.2f} {unit}" for value in values.values()]
    cells += [
        f"{value / theirs:.2f}x" if theirs else "n/a"
        for name, value in values.items()
        if name != "peer"
    ]
    print(f"{figure:<40}" + "".join(f"{cell:>28}" for cell in cells))


async def dashboard_figures(
    urls: dict[str, str], pids: dict[str, int]
) -> dict[str, tuple[float, float]]:
    """Median server CPU and p50 latency of the 100-user dashboard, in ms, alternating."""
    token = mint_token(SECRET, "bench", [DASHBOARD], timedelta(hours=2), SystemClock())
    headers = {"Authorization": f"Bearer {token}"}
    cpu: dict[str, list[float]] = {name: [] for name in urls}
    wall: dict[str, list[float]] = {name: [] for name in urls}
    async with aiohttp.ClientSession() as http:
        sends = {
            name: poster(http, url, dashboard_body(USERS), headers) for name, url in urls.items()
        }
        for send in sends.values():
            for _ in range(2):
                await send()
        for _ in range(DASHBOARD_ROUNDS):
            for name, send in sends.items():
                before, begin = processes.cpu_seconds(pids[name]), time.perf_counter()
                await send()
                wall[name].append((time.perf_counter() - begin) * 1000)
                cpu[name].append((processes.cpu_seconds(pids[name]) - before) * 1000)
    return {name: (statistics.median(cpu[name]), statistics.median(wall[name])) for name in urls}


def main() -> None:
    if not peer_ready():
        sys.exit("bench/peers/apollo/node_modules is missing: npm ci --prefix bench/peers/apollo")
    os.environ.setdefault("AWS_ACCESS_KEY_ID", "bench")
    os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "bench")
    dynalite = DynaliteServer()
    dynalite.start()
    try:
        url = dynalite.endpoint_url
        asyncio.run(prepare(url))
        asyncio.run(seed_edges(url, datetime.now(UTC)))
        ports = {name: processes.free_port() for name in (GATEWAY, CPU_PLAN, "peer")}
        cpu_plan_env = {**common_env(url), "INSIGHT_PRICE_READ_UNIT": "0"}
        with (
            processes.running(
                processes.gateway(ports[GATEWAY]), ports[GATEWAY], common_env(url)
            ) as ours,
            processes.running(
                processes.gateway(ports[CPU_PLAN]), ports[CPU_PLAN], cpu_plan_env
            ) as ours_by_cpu,
            peer(ports["peer"], url) as theirs,
        ):
            urls = {name: f"http://127.0.0.1:{port}/graphql" for name, port in ports.items()}
            started = time.monotonic()
            for gateway in (GATEWAY, CPU_PLAN):
                found = asyncio.run(differences(urls[gateway], urls["peer"], [*USERS, *EDGE_USERS]))
                if found:
                    sys.exit(f"the peer's answers differ from {gateway}'s:\n" + "\n".join(found))
            print(
                f"answers equal for {len(USERS) + len(EDGE_USERS)} users "
                f"({time.monotonic() - started:.1f}s)",
                file=sys.stderr,
            )
            pids = {GATEWAY: ours.pid, CPU_PLAN: ours_by_cpu.pid, "peer": theirs.pid}
            # The load generator's own collections (full ones of 40-60 ms were measured with
            # CPython's defaults) would land in every server's latencies: it collects as the
            # gateway's workers do.
            with settled_collector():
                asyncio.run(compare(urls, pids, dynalite.pid))
    finally:
        dynalite.stop()


if __name__ == "__main__":
    main()
