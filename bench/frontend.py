"""The frontend query's throughput (issue 13): the documented frontend query, as its own user,
through one uvicorn worker's gateway and the naive per-field resolvers of the same process.

Measured twice, in turns within each concurrency step:
- over dynalite, as the rest of the bench: on this box one frontend request waits on
  dynalite's single node process, so that figure is mostly dynalite's;
- over the replayer (bench/replay.py): the answers dynalite gave to exactly these calls,
  recorded once here, then served from memory, so the worker's own CPU is the limit. Its
  cost is reported beside the figures, and one call it has not recorded stops the run."""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import aiohttp

from bench import processes
from bench.poster import pool, poster
from bench.server import FRONTEND_USER
from bench.throughput import Endpoint, Throughput, sustained
from gateway.auth.tokens import mint_token
from gateway.cli.examples import FRONTEND_QUERY
from schema.clock import SystemClock

DYNALITE = "dynalite"
REPLAYED = "replayed DynamoDB"
#: The suffix of the names of the figures over the replayer ("gateway" over dynalite keeps
#: its name, as bench-results.json had it).
REPLAYED_SUFFIX = ", replayed"
#: Requests of each endpoint sent while the replayer records (the calls are the same each
#: time; more than one shows that they are).
RECORDING_REQUESTS = 3
ENDPOINTS = (("gateway", "/graphql"), ("naive", "/bench/naive"))
#: The gateway with its coherent cache on, over dynalite, when the run started one.
CACHED = "gateway, cached"


@dataclass(frozen=True)
class ReplayCost:
    """What the replayer recorded and served, and what that cost it."""

    recorded: int
    served: int
    refused: int
    service_seconds: float
    slowest_seconds: float
    cpu_seconds: float
    #: DynamoDB calls one frontend request makes, by endpoint name, and the read capacity
    #: they consume (the items they read, 4 KB to a unit).
    calls: Mapping[str, int]
    read_units: Mapping[str, float]

    def as_json(self) -> dict[str, Any]:
        return {
            "recorded_calls": self.recorded,
            "served_calls": self.served,
            "refused_calls": self.refused,
            "service_us_per_call": round(self.service_us, 1),
            "slowest_ms": round(self.slowest_seconds * 1000, 2),
            "cpu_us_per_call": round(self.cpu_us, 1),
            "calls_per_request": dict(self.calls),
            "rcu_per_request": dict(self.read_units),
        }

    @property
    def service_us(self) -> float:
        return self.service_seconds / max(self.served, 1) * 1e6

    @property
    def cpu_us(self) -> float:
        return self.cpu_seconds / max(self.served, 1) * 1e6


async def frontend_throughput(
    secret: str,
    worker_url: Mapping[str, str],
    worker_pid: Mapping[str, int],
    dynalite_pid: int,
    replayer: tuple[str, int],
) -> tuple[list[Throughput], ReplayCost]:
    """`worker_url`/`worker_pid` name the gateway processes: "main" over dynalite,
    "replayed" over the replayer at `replayer` (its URL and pid), which is recording, and,
    when there, "cached": the coherent cache on, over dynalite."""
    replayer_url, replayer_pid = replayer
    token = mint_token(secret, FRONTEND_USER, [], timedelta(hours=2), SystemClock())
    headers = {"Authorization": f"Bearer {token}"}
    body = {"query": FRONTEND_QUERY}
    async with aiohttp.ClientSession(connector=pool(64)) as http:

        def endpoint(server: str, path: str, backend: str, backend_pid: int) -> Endpoint:
            pid = worker_pid[server]
            return Endpoint(
                poster(http, worker_url[server] + path, body, headers),
                backend,
                {
                    "worker": lambda: processes.cpu_seconds(pid),
                    "backend": lambda: processes.cpu_seconds(backend_pid),
                    "client": time.process_time,
                },
            )

        calls: dict[str, int] = {}
        read_units: dict[str, float] = {}
        for name, path in ENDPOINTS:
            with_cost = {**headers, "X-Insight-Cost": "1"}
            send = poster(http, worker_url["replayed"] + path, body, with_cost)
            for _ in range(RECORDING_REQUESTS):
                answered = await send()
            calls[name] = int(answered["dynamodbCalls"]) if answered else 0
            read_units[name] = float(answered["readCapacityUnits"]) if answered else 0.0
        await _control(http, replayer_url + "/_replay/replay")
        cpu_before = processes.cpu_seconds(replayer_pid)
        endpoints = {
            **{name: endpoint("main", path, DYNALITE, dynalite_pid) for name, path in ENDPOINTS},
            # The coherent cache (issue 21), warm after the warm-up: no DynamoDB call.
            **(
                {CACHED: endpoint("cached", "/graphql", DYNALITE, dynalite_pid)}
                if "cached" in worker_url
                else {}
            ),
            **{
                name + REPLAYED_SUFFIX: endpoint("replayed", path, REPLAYED, replayer_pid)
                for name, path in ENDPOINTS
            },
        }
        results = await sustained(endpoints)
        stats = await _control(http, replayer_url + "/_replay/stats")
    cost = ReplayCost(
        recorded=stats["recorded"],
        served=stats["served"],
        refused=stats["refused"],
        service_seconds=stats["service_seconds"],
        slowest_seconds=stats["slowest_seconds"],
        cpu_seconds=processes.cpu_seconds(replayer_pid) - cpu_before,
        calls=calls,
        read_units=read_units,
    )
    if cost.refused:
        raise RuntimeError(f"the replayer refused {cost.refused} unrecorded calls (its stderr)")
    return results, cost


async def replayer_stats(replayer_url: str) -> dict[str, Any]:
    async with aiohttp.ClientSession() as http:
        return await _control(http, replayer_url + "/_replay/stats")


async def _control(http: aiohttp.ClientSession, url: str) -> dict[str, Any]:
    async with http.post(url) as response:
        response.raise_for_status()
        stats: dict[str, Any] = await response.json()
        return stats
