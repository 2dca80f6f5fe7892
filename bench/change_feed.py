"""`python -m bench.change_feed`: from a write straight to DynamoDB to the `Change` heard by a
listener, over moto's server (which implements DynamoDB Streams) and a local redis-server:
latency p50/p99, changes missed, and GetRecords per second per shard while idle and busy.

Bounded: WRITES writes at RATE a second over the three streamed tables, then a drain of at
most DRAIN_SECONDS. moto's stream has no propagation delay of its own; DynamoDB's adds its
own (usually well under a second) to these figures.
"""

from __future__ import annotations

import asyncio
import shutil
import socket
import statistics
import sys
import time
from collections.abc import Sequence
from typing import Any, cast

import aioboto3

from gateway.cli.embedded import EmbeddedDynamoDB
from loaders.dynamodb import Dynamo
from loaders.live.changes import Change, ChangeFeed, MemoryChangeFeed, ShardPosition
from loaders.live.changes.redis_feed import RedisChangeFeed
from loaders.live.streams import LeaseCoordinator, StreamsApi
from loaders.tables import Table, TableNames, create_tables

WRITES = 300
RATE = 30.0
DRAIN_SECONDS = 10.0


class Arrivals:
    def __init__(self) -> None:
        self.at: dict[Change, float] = {}
        self.positions = 0

    def changes(self, changes: Sequence[Change]) -> None:
        now = time.monotonic()
        for change in changes:
            self.at.setdefault(change, now)

    def position(self, position: ShardPosition) -> None:
        self.positions += 1

    def resync(self, reason: str) -> None:
        print(f"  resync: {reason}")

    def disconnected(self) -> None:
        print("  feed disconnected")


class CountingStreams:
    def __init__(self, api: StreamsApi) -> None:
        self._api = api
        self.calls = 0

    async def describe_stream(self, **params: Any) -> Any:
        return await self._api.describe_stream(**params)

    async def get_shard_iterator(self, **params: Any) -> Any:
        return await self._api.get_shard_iterator(**params)

    async def get_records(self, **params: Any) -> Any:
        self.calls += 1
        return await self._api.get_records(**params)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


async def measure(feed: ChangeFeed, label: str, endpoint: str, names: TableNames) -> None:
    session = aioboto3.Session()
    async with (
        session.client("dynamodb", endpoint_url=endpoint, region_name="us-east-1") as client,
        aioboto3.Session().client(
            "dynamodbstreams", endpoint_url=endpoint, region_name="us-east-1"
        ) as streams,
    ):
        dynamo = Dynamo(client, names)
        api = CountingStreams(cast("StreamsApi", streams))
        arrivals = Arrivals()
        await feed.start()
        feed.listen(arrivals)
        reader = LeaseCoordinator(dynamo=dynamo, api=api, feed=feed, lease_seconds=10)
        await reader.start()
        try:
            for _ in range(300):
                if reader.held == 3 and arrivals.positions >= 3:
                    break
                await asyncio.sleep(0.05)
            idle_start, calls_before = time.monotonic(), api.calls
            await asyncio.sleep(3.0)
            idle_rate = (api.calls - calls_before) / (time.monotonic() - idle_start) / 3
            committed: dict[Change, float] = {}
            busy_start, calls_before = time.monotonic(), api.calls
            tables = [Table.PAVE, Table.INCOME_DETECTION, Table.BALANCE_SETTINGS]
            for n in range(WRITES):
                table = tables[n % 3]
                if table is Table.BALANCE_SETTINGS:
                    key, item = f"u{n}", {"user_id": {"S": f"u{n}"}}
                else:
                    prefix = "USERS#" if table is Table.PAVE else "INCOME_DETECTION#"
                    key = f"{prefix}u{n}"
                    item = {"PK": {"S": key}, "SK": {"S": "X"}}
                await client.put_item(TableName=names.name(table), Item=item)
                committed[Change(table, key)] = time.monotonic()
                await asyncio.sleep(1 / RATE)
            busy_rate = (api.calls - calls_before) / (time.monotonic() - busy_start) / 3
            for _ in range(int(DRAIN_SECONDS / 0.05)):
                if set(committed) <= set(arrivals.at):
                    break
                await asyncio.sleep(0.05)
        finally:
            await reader.stop()
            await feed.close()
    latencies = sorted(
        (arrivals.at[change] - at) * 1000
        for change, at in committed.items()
        if change in arrivals.at
    )
    missed = len(committed) - len(latencies)
    p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))] if latencies else 0.0
    print(
        f"{label:<8} writes {len(committed)}  missed {missed}  "
        f"latency p50 {statistics.median(latencies):.0f} ms  p99 {p99:.0f} ms  "
        f"GetRecords/s per shard: idle {idle_rate:.2f}, busy {busy_rate:.2f}"
    )


async def main() -> None:
    moto = EmbeddedDynamoDB()
    moto.start()
    redis: asyncio.subprocess.Process | None = None
    try:
        async with aioboto3.Session().client(
            "dynamodb", endpoint_url=moto.endpoint_url, region_name="us-east-1"
        ) as client:
            memory_names = TableNames(*(f"{n}-m" for n in TableNames().all().values()))
            redis_names = TableNames(*(f"{n}-r" for n in TableNames().all().values()))
            await create_tables(client, memory_names)
            await create_tables(client, redis_names)
        print(f"{WRITES} writes at {RATE:.0f}/s over the three streamed tables (moto's server)")
        await measure(MemoryChangeFeed(), "memory", moto.endpoint_url, memory_names)
        server = shutil.which("redis-server")
        if server is None:
            print("redis   skipped: redis-server is not installed")
            return
        port = _free_port()
        redis = await asyncio.create_subprocess_exec(
            server, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
            stdout=asyncio.subprocess.DEVNULL,
        )  # fmt: skip
        await asyncio.sleep(0.5)
        feed = RedisChangeFeed(f"redis://127.0.0.1:{port}/0")
        await measure(feed, "redis", moto.endpoint_url, redis_names)
    finally:
        if redis is not None:
            redis.kill()
            await redis.wait()
        moto.stop()


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
