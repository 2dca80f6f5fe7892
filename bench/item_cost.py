"""`python -m bench items`: an item's CPU on the read path, for the access plan's prices
(schema/plan_prices.py), measured two ways.

In isolation: a bench user's `USERS#<id>` partition (support/seed.py: the 112 items a Query
of it returns, ~38 KB) parsed from a Query answer's bytes by orjson, as the lean path reads
it, and each item decoded from its wire form (`loaders.codec.from_wire`), as every read
that picks an item does.

In a request: the frontend query (gateway/cli/examples.py) executed in this process over
dynalite for one bench user, under each plan in alternating turns (the plans forced as
bench/server.py forces them). Both plans send the same three calls and decode the same
items; the collection parses the partition's 60 other items too, so the difference in CPU
divided by that difference in items is what an item read and not picked costs a request:
its bytes through aiohttp, orjson, the collection's index, the allocator and collector.
A full User likewise: there the prefix plan sends 3 more Queries (7 calls against 4) and
the collection parses 29 more items, which prices a call sent beside the request's others.
Last, the frontend's p99 latency at 8 concurrent clients in this process, per plan in
turns (no HTTP: the plan's own share of the tail).
Medians of rounds, this process's CPU (`time.process_time`)."""

from __future__ import annotations

import asyncio
import os
import statistics
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

import aioboto3
import orjson
from graphql import FieldNode, OperationDefinitionNode, parse

from gateway.cli.examples import FRONTEND_QUERY
from gateway.settings import Settings
from loaders.codec import from_wire, to_wire
from loaders.dynamodb import Dynamo
from loaders.entities import USERS
from loaders.tables import TableNames, create_tables
from schema import access_plan
from schema.clock import SystemClock
from schema.context import build_context
from schema.principal import Principal
from schema.root import build_schema
from support.dynalite_server import DynaliteServer
from support.every_field import every_field
from support.seed import seed_users, user_items

USER = "items-000"
ROUNDS = 7
#: Answers parsed (and partitions decoded) a round: bounded, ~1 s a round on a quiet box.
REPEATS = 400
#: The frontend under each plan: requests before measuring, then rounds of turns.
WARMUP = 50
TURNS = 9
TURN = 40


def partition_answer(user_id: str = USER) -> bytes:
    """The body of a Query answer holding the user's whole partition."""
    partition = USERS.pk.build({"user_id": user_id})
    partition_key = USERS.table.key_names[0]
    items = [
        to_wire(item)
        for table, item in user_items(user_id, datetime.now(UTC), Settings())
        if table is USERS.table and item[partition_key] == partition
    ]
    return orjson.dumps({"Items": items, "Count": len(items), "ScannedCount": len(items)})


def per_item_us(work: Callable[[], int]) -> float:
    """The median CPU of one item of `work` (which returns how many items it did), in µs."""
    medians: list[float] = []
    for _ in range(ROUNDS):
        started, items = time.process_time(), 0
        for _ in range(REPEATS):
            items += work()
        medians.append((time.process_time() - started) / items * 1e6)
    return statistics.median(medians)


async def measure(endpoint: str) -> tuple[dict[str, dict[str, float]], dict[str, float]]:
    """The median CPU per request in this process, in ms, per query and plan (the frontend
    query, and a full User: a check of the plan's estimate); and the frontend's p99 latency
    at `CLIENTS` concurrent clients, in ms, per plan."""
    tables = TableNames()
    session = aioboto3.Session()
    async with session.client("dynamodb", endpoint_url=endpoint, region_name="us-east-1") as client:
        await create_tables(client, tables, ttl=False, streams=False)
        dynamo = Dynamo(client, tables)
        await seed_users(dynamo, [USER], datetime.now(UTC), Settings())
        schema, clock = build_schema(), SystemClock()
        queries = {
            "frontend": FRONTEND_QUERY,
            "full User": f"{{ viewer {every_field(schema._schema, 'User')} }}",
        }
        requests = {
            name: _requester(schema, dynamo, clock, query) for name, query in queries.items()
        }
        cpu = {name: await _cpu_in_turns(request) for name, request in requests.items()}
        return cpu, await _p99_in_turns(requests["frontend"])


#: The plans, as bench/server.py forces them: the collection's read units.
PLANS: dict[str, float] = {"prefix": float("inf"), "collection": 0.0}
#: Concurrent clients of the latency figure, each sending `CLIENT_REQUESTS` a turn.
CLIENTS = 8
CLIENT_REQUESTS = 10


def _requester(
    schema: Any, dynamo: Dynamo, clock: SystemClock, query: str
) -> Callable[[], Awaitable[None]]:
    async def request() -> None:
        context = build_context(dynamo=dynamo, principal=Principal(USER), clock=clock)
        result = await schema.execute(query, context_value=context)
        if result.errors:
            raise RuntimeError(f"the query failed: {result.errors}")

    return request


async def _cpu_in_turns(request: Callable[[], Awaitable[None]]) -> dict[str, float]:
    cpu: dict[str, list[float]] = {plan: [] for plan in PLANS}
    kept = access_plan.COLLECTION_UNITS
    try:
        for turn in range(TURNS + 1):
            for plan, units in PLANS.items():
                access_plan.COLLECTION_UNITS = units
                count = WARMUP if turn == 0 else TURN
                started = time.process_time()
                await _repeat(request, count)
                if turn:
                    cpu[plan].append((time.process_time() - started) / count * 1000)
    finally:
        access_plan.COLLECTION_UNITS = kept
    return {plan: statistics.median(values) for plan, values in cpu.items()}


async def _p99_in_turns(request: Callable[[], Awaitable[None]]) -> dict[str, float]:
    latencies: dict[str, list[float]] = {plan: [] for plan in PLANS}

    async def client(plan: str) -> None:
        for _ in range(CLIENT_REQUESTS):
            started = time.perf_counter()
            await request()
            latencies[plan].append((time.perf_counter() - started) * 1000)

    kept = access_plan.COLLECTION_UNITS
    try:
        for _ in range(TURNS):
            for plan, units in PLANS.items():
                access_plan.COLLECTION_UNITS = units
                await asyncio.gather(*(client(plan) for _ in range(CLIENTS)))
    finally:
        access_plan.COLLECTION_UNITS = kept
    return {plan: statistics.quantiles(values, n=100)[98] for plan, values in latencies.items()}


def frontend_items() -> float:
    """The partition's items the frontend query's reads pick (from the entities' declarations)."""
    operation = parse(FRONTEND_QUERY).definitions[0]
    assert isinstance(operation, OperationDefinitionNode)
    viewer = operation.selection_set.selections[0]
    assert isinstance(viewer, FieldNode)
    fields = access_plan.user_fields(viewer.selection_set, {})
    return access_plan.prefix_plan_cost(fields, {}).items_decoded


async def _repeat(request: Callable[[], Awaitable[None]], count: int) -> None:
    for _ in range(count):
        await request()


def main() -> None:
    body = partition_answer()
    wire = orjson.loads(body)["Items"]
    parse = per_item_us(lambda: len(orjson.loads(body)["Items"]))
    decode = per_item_us(lambda: len([from_wire(item) for item in wire]))
    print(f"a partition answer: {len(wire)} items, {len(body):,} bytes")
    print(f"{'in isolation, µs an item':<44}{'':>10}")
    print(f"{'  parsed (orjson)':<44}{parse:10.2f}")
    print(f"{'  decoded (from_wire)':<44}{decode:10.2f}")
    os.environ.setdefault("AWS_ACCESS_KEY_ID", "bench")
    os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "bench")
    dynalite = DynaliteServer()
    dynalite.start()
    try:
        measured, p99 = asyncio.run(measure(dynalite.endpoint_url))
    finally:
        dynalite.stop()
    print(f"in a request, CPU a request (medians of {TURNS} turns of {TURN}), ms")
    for name, cpu in measured.items():
        for plan, ms in cpu.items():
            print(f"{f'  {name}, {plan}':<44}{ms:10.2f}")
    frontend = measured["frontend"]
    extra = USERS.items - frontend_items()
    difference = (frontend["collection"] - frontend["prefix"]) * 1000 / extra
    print(f"{f'an item read, not picked ({extra:g} items), µs':<44}{difference:10.2f}")
    full = measured["full User"]
    every = access_plan.prefix_plan_cost([(name, None) for name in access_plan.USER_READS], {})
    calls, items = every.calls - 1, USERS.items - every.items_read
    call = ((full["prefix"] - full["collection"]) * 1000 + items * difference) / calls
    print(f"{f'a call beside the others ({calls:.2f} calls, {items:g} items), µs':<44}{call:10.2f}")
    print(
        f"the frontend's p99 at {CLIENTS} clients in process, ms "
        f"({TURNS} turns of {CLIENT_REQUESTS} requests a client)"
    )
    for plan, ms in p99.items():
        print(f"{'  ' + plan:<44}{ms:10.2f}")
