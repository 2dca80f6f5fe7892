"""Two gateway processes reading the streams of moto's tables, sharing changes through a real
`redis-server`: each shard is read by one of them; SIGKILL of the lease holder hands its
shards to the other after the lease duration, and a change made while no replica reads is
still delivered; SIGTERM hands them over at once (released, not taken over).

A lease is wall-clock time between two processes, so each is long against a stall: a replica
starved of CPU for a while (both cores taken by other tests) is not taken over while alive."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import httpx
import pytest

from loaders.live.changes import Change
from loaders.live.changes.redis_feed import RedisChangeFeed
from loaders.tables import Table, TableNames
from support.metrics_text import value
from support.processes import free_port
from support.redis_server import RedisServer
from tests.change_recorder import Recorder
from tests.environment import table_variables

if TYPE_CHECKING:
    from types_aiobotocore_dynamodb import DynamoDBClient

#: Long enough that a live replica keeps its leases on a loaded machine (it renews every
#: quarter of it); the killed holder's shards are taken over after it.
LEASE_SECONDS = 8
#: The SIGTERM test's lease: far beyond the test's wait for the hand-over, so that only a
#: released lease can pass it (a lease waited out would be a takeover).
LONG_LEASE_SECONDS = 600


class Replica:
    def __init__(
        self, endpoint_url: str, tables: TableNames, redis_uri: str, log: Path, lease: float
    ) -> None:
        self.port = free_port()
        env = dict(os.environ)
        env.update(table_variables(tables))
        env.update(
            INSIGHT_DYNAMODB_ENDPOINT_URL=endpoint_url,
            INSIGHT_SUBSCRIPTIONS="true",
            INSIGHT_CHANGE_FEED_URI=redis_uri,
            INSIGHT_STREAM_LEASE_SECONDS=str(lease),
            INSIGHT_SHUTDOWN_GRACE_SECONDS="2",
        )
        self._log = log.open("wb")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "gateway.cli.main", "serve", "--port", str(self.port)],
            env=env,
            stdout=self._log,
            stderr=subprocess.STDOUT,
        )

    def metric(self, name: str) -> float:
        return value(httpx.get(f"http://127.0.0.1:{self.port}/metrics", timeout=5).text, name)

    def up(self) -> bool:
        try:
            return httpx.get(f"http://127.0.0.1:{self.port}/healthz", timeout=1).status_code == 200
        except httpx.HTTPError:
            return False

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=10)
        self._log.close()


@pytest.fixture
def lease() -> float:
    return LEASE_SECONDS


@pytest.fixture
def replicas(
    endpoint_url: str, tables: TableNames, redis_server: RedisServer, tmp_path: Path, lease: float
) -> Iterator[Callable[[], Replica]]:
    started: list[Replica] = []

    def start() -> Replica:
        log = tmp_path / f"r{len(started)}.log"
        replica = Replica(endpoint_url, tables, redis_server.uri, log, lease)
        started.append(replica)
        return replica

    yield start
    for replica in started:
        replica.stop()


@pytest.fixture
async def heard(redis_server: RedisServer) -> AsyncIterator[Recorder]:
    """What a third replica's listener hears on the feed."""
    feed = RedisChangeFeed(redis_server.uri)
    recorder = Recorder()
    feed.listen(recorder)
    await feed.start()
    yield recorder
    await feed.close()


async def until(condition: Callable[[], bool], seconds: float = 90.0) -> None:
    """Until `condition` holds. The bound is for what never happens: a replica's start takes
    a few seconds alone, and 20-30 s with both cores taken by others."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if await asyncio.to_thread(condition):
            return
        await asyncio.sleep(0.1)
    raise AssertionError("condition not met in time")


async def write(dynamodb: DynamoDBClient, tables: TableNames, user: str) -> None:
    await dynamodb.put_item(
        TableName=tables.pave, Item={"PK": {"S": f"USERS#{user}"}, "SK": {"S": "PROFILE"}}
    )


async def two_replicas_reading(
    start: Callable[[], Replica], dynamodb: DynamoDBClient, tables: TableNames, heard: Recorder
) -> tuple[Replica, Replica]:
    first = start()
    await until(lambda: first.up() and first.metric("gateway_stream_leases_held") == 3)
    second = start()
    await until(second.up)
    # Both hear a change the first read, through Redis.
    await write(dynamodb, tables, "before")
    await until(lambda: Change(Table.PAVE, "USERS#before") in heard.heard)
    await until(lambda: second.metric("gateway_change_feed_changes_received_total") >= 1)
    assert first.metric("gateway_change_feed_changes_received_total") >= 1
    assert first.metric("gateway_change_feed_connected") == 1
    # Nothing is stolen from a live replica.
    assert second.metric("gateway_stream_leases_held") == 0
    return first, second


async def test_a_killed_lease_holders_shards_are_taken_over_and_nothing_is_missed(
    replicas: Callable[[], Replica], dynamodb: DynamoDBClient, tables: TableNames, heard: Recorder
) -> None:
    first, second = await two_replicas_reading(replicas, dynamodb, tables, heard)
    await asyncio.sleep(0.5)  # the checkpoint after USERS#before lands
    first.process.send_signal(signal.SIGKILL)
    first.process.wait(timeout=10)
    # Written while no replica reads the stream.
    await write(dynamodb, tables, "unread")
    await until(lambda: second.metric("gateway_stream_leases_held") == 3)
    await until(lambda: Change(Table.PAVE, "USERS#unread") in heard.heard)
    assert second.metric("gateway_stream_lease_takeovers_total") == 3
    assert second.metric("gateway_stream_records_total") >= 1


@pytest.mark.parametrize("lease", [LONG_LEASE_SECONDS])
async def test_sigterm_hands_the_leases_over_at_once(
    replicas: Callable[[], Replica], dynamodb: DynamoDBClient, tables: TableNames, heard: Recorder
) -> None:
    first, second = await two_replicas_reading(replicas, dynamodb, tables, heard)
    first.process.send_signal(signal.SIGTERM)
    # uvicorn shuts down gracefully, then dies of the signal it caught.
    assert first.process.wait(timeout=20) in (0, -signal.SIGTERM)
    # Well inside the lease: only a released lease is taken by now.
    await until(lambda: second.metric("gateway_stream_leases_held") == 3)
    # Released, so taken without waiting out a lease: no takeover.
    assert second.metric("gateway_stream_lease_takeovers_total") == 0
    await write(dynamodb, tables, "after")
    await until(lambda: Change(Table.PAVE, "USERS#after") in heard.heard)


async def test_a_frozen_redis_cuts_both_replicas_off_and_a_change_made_meanwhile_arrives_after(
    replicas: Callable[[], Replica],
    dynamodb: DynamoDBClient,
    tables: TableNames,
    heard: Recorder,
    redis_server: RedisServer,
) -> None:
    first, second = await two_replicas_reading(replicas, dynamodb, tables, heard)
    received = "gateway_change_feed_changes_received_total"
    before = first.metric(received)
    redis_server.pause()
    try:
        await until(lambda: first.metric("gateway_change_feed_connected") == 0)
        await until(lambda: second.metric("gateway_change_feed_connected") == 0)
        await write(dynamodb, tables, "while-frozen")
        await asyncio.sleep(1.0)
        assert first.metric(received) == before
    finally:
        redis_server.resume()
    await until(lambda: first.metric("gateway_change_feed_connected") == 1)
    await until(lambda: second.metric("gateway_change_feed_connected") == 1)
    # The reader kept its checkpoint while it could not publish: the change is published
    # once the feed is back (and heard by the publisher's own subscription, connected first).
    await until(lambda: first.metric(received) >= before + 1)
    # Every replica cut off resyncs once back (a listener that reconnected after the publish
    # hears the resync instead of the change: either way nothing is silently missed).
    await until(lambda: ("resync", "change feed reconnected") in heard.heard)
