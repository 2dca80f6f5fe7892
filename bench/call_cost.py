"""A DynamoDB call's own CPU, botocore's path against the lean one (loaders/wire/), and
where botocore's goes, by stage.

Both paths go through `Dynamo` (its call log, attempts and observers included) on one
client opened as the gateway opens it; the calls are the read path's: a GetItem, a
BatchGetItem of five keys and a Query of one seeded user's recurring expenses, one at a
time, the two paths in alternating turns (a shared machine's load drifts alike). CPU is
this process's (`time.process_time`)."""

from __future__ import annotations

import asyncio
import contextlib
import cProfile
import io
import os
import pstats
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import aioboto3

if TYPE_CHECKING:
    pass

from loaders import entities as e
from loaders.dynamodb import BOTOCORE, LEAN, Dynamo
from loaders.tables import TableNames
from loaders.wire.client import OPERATIONS, TARGET_PREFIX, encode
from loaders.wire.connection import Connection

#: The user `python -m bench calls` seeds (`make bench` uses its first bench user).
USER = "calls-000"
#: A floor row: the same requests posted over aiohttp (the botocore client's own session,
#: which the lean path used before it had connections of its own), nothing else.
WIRE = "aiohttp"
#: The lean path's own connections (loaders/wire/pool.py) with the requests signed once:
#: what the lean path costs without its own work.
POOL = "pool"
#: The floor: the same requests written on one of the lean path's kept-alive connections
#: (an asyncio Protocol, the answers parsed by httptools), without the pool, nothing else.
HTTPTOOLS = "httptools"
#: Turns of the three calls each path is given (bounded: ~3 s a path on a quiet box).
TURNS = 300
WARMUP = 30
ROUNDS = 5

#: The lean path's own HTTP client.
_OWN_HTTP = ("wire/pool.py", "wire/connection.py", "httpsession.py")
#: The stages of a call, by where the code is (first match wins); a function's own time
#: (cProfile's tottime, on the CPU clock) counts in its stage, so the stages add up.
STAGES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("serialise", ("botocore/serialize.py", "botocore/validate.py", "wire/client.py:encode")),
    ("event hooks", ("botocore/hooks.py", "aiobotocore/hooks.py", "botocore/handlers.py")),
    ("signing", ("botocore/auth.py", "signers.py", "wire/signer.py", "credentials.py", "hmac")),
    ("HTTP client", ("aiohttp/", "yarl/", "multidict", "socket", "httptools", *_OWN_HTTP)),
    ("parsing", ("parsers.py", "blobs.py", "orjson", "loads", "awsrequest.py")),
    ("asyncio's loop", ("asyncio/", "selectors.py", "epoll")),
    ("Dynamo.call and the call log", ("loaders/dynamodb.py", "loaders/call_log.py")),
    ("the rest of the client", ("botocore/", "aiobotocore/", "wire/")),
)


@dataclass
class PathCost:
    name: str
    cpu_per_call_us: list[float] = field(default_factory=list)
    #: The user-space share of the same calls (the rest is the kernel's: the socket, which
    #: on loopback includes the receiving side's TCP work).
    user_per_call_us: list[float] = field(default_factory=list)

    @property
    def user_us(self) -> float:
        return statistics.median(self.user_per_call_us)

    @property
    def median_us(self) -> float:
        return statistics.median(self.cpu_per_call_us)


def _params(dynamo: Dynamo, user_id: str) -> list[tuple[str, dict[str, Any]]]:
    """The three calls' operations and parameters."""
    names = dynamo.tables
    point = e.PAYDAY.key(user_id=user_id)
    batch = [
        e.PAYDAY.key(user_id=user_id),
        e.PAVE_LABEL.key(user_id=user_id),
        e.BALANCE_SETTINGS.key(user_id=user_id),
        e.ALERT.key(user_id=user_id),
        e.INCOME.key(user_id=user_id),
    ]
    request: dict[str, Any] = {}
    for key in batch:
        request.setdefault(names.name(key.table), {"Keys": []})["Keys"].append(key.attributes())
    recurring = e.RECURRING_EXPENSE.query(user_id=user_id)
    partition, sort = recurring.table.key_names
    query = {
        "TableName": names.name(recurring.table),
        "KeyConditionExpression": "#pk = :pk AND begins_with(#sk, :prefix)",
        "ExpressionAttributeNames": {"#pk": partition, "#sk": sort},
        "ExpressionAttributeValues": {
            ":pk": {"S": recurring.pk},
            ":prefix": {"S": recurring.sk_prefix},
        },
        "ReturnConsumedCapacity": "TOTAL",
    }
    return [
        ("get_item", {"TableName": names.name(point.table), "Key": point.attributes()}),
        ("batch_get_item", {"RequestItems": request, "ReturnConsumedCapacity": "TOTAL"}),
        ("query", query),
    ]


def _calls(dynamo: Dynamo, user_id: str) -> list[Callable[[], Awaitable[Any]]]:
    """The three calls, through `Dynamo.call` (its accounting, not the codec's decoding)."""

    def call(operation: str, params: dict[str, Any]) -> Callable[[], Awaitable[Any]]:
        return lambda: dynamo.call(operation, **params)

    return [call(operation, params) for operation, params in _params(dynamo, user_id)]


async def _signed(dynamo: Dynamo, user_id: str) -> list[tuple[dict[str, str], bytes]]:
    """The lean path's three requests, signed once: their headers and bodies."""
    lean: Any = dynamo._lean
    credentials = await lean.credentials()
    requests = []
    for operation, params in _params(dynamo, user_id):
        body = encode(params)
        target = TARGET_PREFIX + OPERATIONS[operation]
        headers = lean.signer.headers(target, body, credentials, datetime.now(UTC))
        requests.append((headers, body))
    return requests


async def _wire_floor(dynamo: Dynamo, user_id: str) -> list[Callable[[], Awaitable[Any]]]:
    """aiohttp's floor: the lean path's three requests, signed once, then posted again and
    again on the botocore client's aiohttp session and read, unparsed."""
    lean: Any = dynamo._lean
    endpoint: Any = getattr(dynamo.client, "_endpoint")  # noqa: B009 (not in its stubs)
    session = await endpoint.http_session._get_session(None)
    requests = await _signed(dynamo, user_id)

    async def post(headers: dict[str, str], body: bytes) -> bytes:
        async with session.post(lean.endpoint_url, data=body, headers=headers) as response:
            read: bytes = await response.read()
            return read

    def bare(headers: dict[str, str], body: bytes) -> Callable[[], Awaitable[Any]]:
        return lambda: post(headers, body)

    return [bare(headers, body) for headers, body in requests]


async def _requests(dynamo: Dynamo, user_id: str) -> list[bytes]:
    """The lean path's three requests, signed once, as whole HTTP/1.1 requests (the bytes
    its attempts write)."""
    lean: Any = dynamo._lean
    credentials = await lean.credentials()
    return [
        lean.request(TARGET_PREFIX + OPERATIONS[operation], encode(params), credentials)
        for operation, params in _params(dynamo, user_id)
    ]


async def _pool_floor(dynamo: Dynamo, user_id: str) -> list[Callable[[], Awaitable[Any]]]:
    """The lean path's connections: its three requests, signed once, then exchanged again
    and again through its pool."""
    lean: Any = dynamo._lean
    pool = lean.pool(lean.endpoint_url)

    def bare(request: bytes) -> Callable[[], Awaitable[Any]]:
        return lambda: pool.exchange(request)

    return [bare(request) for request in await _requests(dynamo, user_id)]


async def _httptools_floor(
    dynamo: Dynamo, user_id: str
) -> tuple[list[Callable[[], Awaitable[Any]]], list[Connection]]:
    """The floor: the lean path's three requests, signed once, then written again and
    again on one of its connections (loaders/wire/connection.py), without the pool. The
    connection idles through the other paths' turns: past dynalite's keep-alive (5 s) it
    is closed, and opened again before the next turn."""
    lean: Any = dynamo._lean
    url = urlsplit(lean.endpoint_url)
    host, port = url.hostname or "127.0.0.1", url.port or 80

    async def opened() -> Connection:
        _, connection = await asyncio.get_running_loop().create_connection(
            lambda: Connection(lean.endpoint_url, read_timeout=None), host, port
        )
        return connection

    held = [await opened()]

    def bare(request: bytes) -> Callable[[], Awaitable[Any]]:
        async def exchange() -> Any:
            if held[0].closed:
                held[0] = await opened()
            return await held[0].exchange(request)

        return exchange

    return [bare(request) for request in await _requests(dynamo, user_id)], held


async def measure(client: Any, tables: TableNames, user_id: str) -> list[PathCost]:
    """CPU per call of each path, medians of ROUNDS alternating rounds."""
    paths = {name: Dynamo(client, tables, call_path=name) for name in (BOTOCORE, LEAN)}
    costs = {name: PathCost(name) for name in (*paths, WIRE, POOL, HTTPTOOLS)}
    calls = {name: _calls(dynamo, user_id) for name, dynamo in paths.items()}
    calls[WIRE] = await _wire_floor(paths[LEAN], user_id)
    calls[POOL] = await _pool_floor(paths[LEAN], user_id)
    calls[HTTPTOOLS], held = await _httptools_floor(paths[LEAN], user_id)
    try:
        return await _alternating(calls, costs)
    finally:
        held[0].close()


async def _alternating(
    calls: dict[str, list[Callable[[], Awaitable[Any]]]], costs: dict[str, PathCost]
) -> list[PathCost]:
    """Each path's calls, warmed up, then timed in ROUNDS rounds of alternating turns."""
    for name in calls:
        for _ in range(WARMUP):
            for call in calls[name]:
                await call()
    for _ in range(ROUNDS):
        for name in calls:
            before, user = time.process_time(), os.times().user
            for _ in range(TURNS // ROUNDS):
                for call in calls[name]:
                    await call()
            spent, in_user = time.process_time() - before, os.times().user - user
            costs[name].cpu_per_call_us.append(spent / (TURNS // ROUNDS * 3) * 1e6)
            costs[name].user_per_call_us.append(in_user / (TURNS // ROUNDS * 3) * 1e6)
    return list(costs.values())


def _stage_of(where: str) -> str:
    for stage, marks in STAGES:
        if any(mark in where for mark in marks):
            return stage
    return "builtins and the standard library"


async def stages(client: Any, tables: TableNames, user_id: str) -> dict[str, dict[str, float]]:
    """Each path under cProfile on the CPU clock: µs a call in each stage (profiled, so
    inflated alike; the shares are what to read)."""
    found: dict[str, dict[str, float]] = {}
    for path in (BOTOCORE, LEAN):
        calls = _calls(Dynamo(client, tables, call_path=path), user_id)
        profiler = cProfile.Profile(time.process_time)
        profiler.enable()
        for _ in range(TURNS // 3):
            for call in calls:
                await call()
        profiler.disable()
        stats: Any = getattr(pstats.Stats(profiler), "stats")  # noqa: B009 (not in its stubs)
        count = TURNS // 3 * len(calls)
        spent: dict[str, float] = {stage: 0.0 for stage, _ in STAGES}
        spent["builtins and the standard library"] = 0.0
        for (filename, line, name), (_, _, own, _, _) in stats.items():
            where = f"{filename}:{name}" if line else name
            spent[_stage_of(where)] += own / count * 1e6
        found[path] = spent
    return found


def print_costs(costs: list[PathCost], breakdown: dict[str, dict[str, float]]) -> None:
    print("\nA DynamoDB call's CPU (GetItem, BatchGetItem of 5, Query; medians of turns)")
    print(f"{'path':<12}{'CPU per call':>16}{'of which user':>16}")
    for cost in costs:
        print(f"{cost.name:<12}{cost.median_us:>13.0f} µs{cost.user_us:>13.0f} µs")
    botocore, lean, wire, pool, floor = (cost.median_us for cost in costs)
    print(f"lean ÷ botocore: {lean / botocore:.2f}; lean - pool: {lean - pool:.0f} µs a call")
    print(
        f"the pool's own share: pool - httptools: {pool - floor:.0f} µs a call; "
        f"aiohttp's, as the lean path's transport before: {wire - floor:.0f} µs"
    )
    print(f"target: lean ≤ 150 µs a call: {'met' if lean <= 150 else 'NOT met'}")
    print("\nWhere a call's CPU goes (cProfile on the CPU clock, own time by stage, µs a call)")
    print(f"  {'stage':<32}{'botocore':>10}{'lean':>10}")
    for stage in breakdown[BOTOCORE]:
        row = (breakdown[path][stage] for path in (BOTOCORE, LEAN))
        print(f"  {stage:<32}" + "".join(f"{micros:>10.0f}" for micros in row))
    totals = (sum(breakdown[path].values()) for path in (BOTOCORE, LEAN))
    print(f"  {'total (profiled)':<32}" + "".join(f"{micros:>10.0f}" for micros in totals))
    sys.stdout.flush()


async def call_costs(endpoint: str, tables: TableNames, user_id: str) -> str:
    """The two tables, printed, over a client opened as the gateway opens one."""
    # Imported here: bench/run.py imports this module, and gateway.resources is its own.
    from gateway.resources import client_config
    from gateway.settings import Settings

    config = client_config(Settings())
    async with aioboto3.Session().client(
        "dynamodb", endpoint_url=endpoint, region_name="us-east-1", config=config
    ) as client:
        costs = await measure(client, tables, user_id)
        breakdown = await stages(client, tables, user_id)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        print_costs(costs, breakdown)
    return printed.getvalue()


def main() -> None:
    """`python -m bench calls`: only these two tables, over a dynalite of one seeded user."""
    from gateway.settings import Settings
    from loaders.tables import create_tables
    from support.dynalite_server import DynaliteServer
    from support.seed import seed_users

    os.environ.setdefault("AWS_ACCESS_KEY_ID", "bench")
    os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "bench")

    async def seeded(endpoint: str) -> str:
        tables = TableNames()
        async with aioboto3.Session().client(
            "dynamodb", endpoint_url=endpoint, region_name="us-east-1"
        ) as client:
            await create_tables(client, tables, ttl=False, streams=False)
            await seed_users(Dynamo(client, tables), [USER], datetime.now(UTC), Settings())
        return await call_costs(endpoint, tables, USER)

    dynalite = DynaliteServer()
    dynalite.start()
    try:
        print(asyncio.run(seeded(dynalite.endpoint_url)))
    finally:
        dynalite.stop()
