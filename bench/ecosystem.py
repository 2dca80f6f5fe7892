"""What batching saves, and what counting field usage costs.

    .venv/bin/python -m bench.ecosystem [--delay-ms 20] [--rounds 20]

Prints:
- batching: N queries over N different users (N = 3 and 10), sent as one batch and as N
  requests one after another, through the ASGI app over moto's DynamoDB behind a proxy that
  delays every DynamoDB answer by `--delay-ms` (support/faults.py): the median wall time of
  each, and the DynamoDB calls each made (the proxy counts them);
- field usage: the CPU of counting one operation (`FieldUsage.count`) when its document is
  memoised (every request but the first of a text), and of the first walk, for the every-field
  `viewer` query. (A whole request's CPU is not compared: moto's server runs in this process,
  so its work would be counted too.)
Bounded: a fixed number of rounds; the servers are on loopback and stopped on the way out.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import statistics
import time
from collections.abc import Awaitable, Callable

from graphql import parse
from prometheus_client import CollectorRegistry

from gateway.cli.embedded import EmbeddedDynamoDB
from gateway.observability.field_usage import FieldUsage
from gateway.resources import open_dynamo
from gateway.settings import Settings
from loaders.tables import create_tables
from schema.clock import SystemClock
from schema.extensions.coordinates import coordinates_of
from schema.prepared import PreparedOperations
from schema.root import build_schema
from support.every_field import every_field
from support.faults import Delay, FaultProxy, fault_proxy
from support.http_client import app_client
from support.seed import seed_users

SECRET = "bench-ecosystem-secret-0123456789abcdef"
#: The users the batches read, seeded with the benchmark's full users (support/seed.py), so
#: that each read returns the rows a real user has.
BENCH_USERS = [f"bench-u{n:02}" for n in range(10)]


def alert_of(user_id: str) -> str:
    return f'{{ user(id: "{user_id}") {{ id alert {{ alertSent }} payday {{ nextDate }} }} }}'


async def wall(call: Callable[[], Awaitable[object]], rounds: int) -> float:
    samples = []
    for _ in range(rounds):
        started = time.perf_counter()
        await call()
        samples.append(time.perf_counter() - started)
    return statistics.median(samples) * 1000


async def batching(settings: Settings, proxy: FaultProxy, delay: float, rounds: int) -> None:
    print(f"batching: every DynamoDB answer delayed {delay * 1000:.0f} ms; medians of {rounds}")
    async with app_client(settings, SystemClock(), http_timeout=60) as client:
        for count in (3, 10):
            users = BENCH_USERS[:count]
            batch = [{"query": alert_of(user)} for user in users]

            async def one_batch(batch: list[dict[str, str]] = batch) -> None:
                answer = await client.post("/graphql", json=batch)
                assert answer.status_code == 200, answer.text

            async def one_by_one(users: list[str] = users) -> None:
                for user in users:
                    answer = await client.post("/graphql", json={"query": alert_of(user)})
                    assert answer.status_code == 200, answer.text

            for name, call in (("one batch", one_batch), (f"{count} requests", one_by_one)):
                await call()  # warm the parser cache and the connection pool
                proxy.reset()
                proxy.inject("BatchGetItem", Delay(delay), times=1_000_000)
                proxy.inject("Query", Delay(delay), times=1_000_000)
                ms = await wall(call, rounds)
                calls = sum(proxy.received.values()) / rounds
                print(f"  {count} users, {name:>12}: {ms:7.1f} ms, {calls:4.1f} DynamoDB calls")


def cpu_us(call: Callable[[], object], iterations: int) -> float:
    samples = []
    for _ in range(iterations):
        started = time.process_time_ns()
        call()
        samples.append(time.process_time_ns() - started)
    return statistics.median(samples) / 1000


def counting(iterations: int) -> None:
    schema = build_schema()._schema
    document = parse(f"{{ viewer {every_field(schema, 'User')} }}")
    usage = FieldUsage(CollectorRegistry())
    prepared = PreparedOperations()

    def count() -> None:
        usage.count(prepared.prepare(schema, None, document, None).coordinates())

    count()
    coordinates = len(coordinates_of(schema, document))
    hit = cpu_us(count, iterations)
    walk = cpu_us(lambda: coordinates_of(schema, document), iterations)
    print(f"field usage: the every-field viewer query reads {coordinates} coordinates")
    print(f"  count, document memoised: {hit:6.2f} µs CPU per operation")
    print(f"  the walk, once per document: {walk:6.1f} µs CPU")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--delay-ms", type=float, default=20.0)
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()
    dynamodb = EmbeddedDynamoDB()
    dynamodb.start()
    try:
        settings = dataclasses.replace(
            Settings.from_environ({}),
            auth_hs256_secret=SECRET,
            dynamodb_endpoint_url=dynamodb.endpoint_url,
            dynamodb_read_timeout_seconds=30.0,
            request_deadline_seconds=60.0,
            rate_limit_dashboard="1000000/second",
        )
        async with open_dynamo(settings) as dynamo:
            await create_tables(dynamo.client, settings.tables)
            await seed_users(dynamo, BENCH_USERS, SystemClock().now(), settings)
        async with fault_proxy(dynamodb.endpoint_url) as proxy:
            proxied = dataclasses.replace(settings, dynamodb_endpoint_url=proxy.endpoint_url)
            await batching(proxied, proxy, args.delay_ms / 1000, args.rounds)
        counting(args.rounds * 100)
    finally:
        dynamodb.stop()


if __name__ == "__main__":
    asyncio.run(main())
