"""The Redis change feed, against a real `redis-server`: every replica's listeners hear every
publish (the publisher's too), in order; a frozen Redis cuts the feed off (`disconnected`),
and once it answers again the listeners resync; a gap in a publisher's numbers resyncs."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Iterator

import coredis
import orjson
import pytest

from loaders.changes import Change, ShardPosition
from loaders.changes.factory import open_change_feed
from loaders.changes.redis_feed import FeedUnavailable, RedisChangeFeed
from loaders.tables import Table
from tests.loaders.changes.test_memory_feed import Recorder
from tests.redis_server import RedisServer


@pytest.fixture(scope="module")
def redis_server() -> Iterator[RedisServer]:
    server = RedisServer()
    server.start()
    yield server
    server.stop()


@pytest.fixture
def redis(redis_server: RedisServer) -> Iterator[RedisServer]:
    yield redis_server
    redis_server.resume()


@pytest.fixture
async def feeds(redis: RedisServer) -> AsyncIterator[list[RedisChangeFeed]]:
    opened = [
        RedisChangeFeed(redis.uri, health_seconds=0.2, timeout_seconds=0.5, backoff_cap=0.5)
        for _ in range(2)
    ]
    for feed in opened:
        await feed.start()
    yield opened
    for feed in opened:
        await feed.close()


async def until(condition: Callable[[], bool], seconds: float = 10.0) -> None:
    for _ in range(int(seconds / 0.02)):
        if condition():
            return
        await asyncio.sleep(0.02)
    raise AssertionError("condition not met in time")


async def test_the_factory_picks_the_feed_by_its_uri(redis: RedisServer) -> None:
    assert type(open_change_feed("memory://")).__name__ == "MemoryChangeFeed"
    assert isinstance(open_change_feed(redis.uri), RedisChangeFeed)
    with pytest.raises(ValueError, match="memory:// or redis://"):
        open_change_feed("kafka://somewhere")


async def test_a_publish_reaches_both_replicas_listeners_in_order(
    feeds: list[RedisChangeFeed],
) -> None:
    first, second = Recorder(), Recorder()
    feeds[0].listen(first)
    feeds[1].listen(second)
    assert all(feed.connected for feed in feeds)
    change = Change(Table.PAVE, "USERS#u1")
    other = Change(Table.BALANCE_SETTINGS, "u1")
    position = ShardPosition(Table.PAVE, "shardId-1", 1700000000.25)

    await feeds[1].publish([change, other])
    await feeds[1].publish_position(position)
    await feeds[0].publish_resync("stream trimmed")

    expected = [change, other, position, ("resync", "stream trimmed")]
    await until(lambda: len(first.heard) == 4 and len(second.heard) == 4)
    assert first.heard == expected
    assert second.heard == expected


async def test_a_frozen_redis_cuts_the_feed_off_and_its_return_resyncs(
    redis: RedisServer, feeds: list[RedisChangeFeed]
) -> None:
    recorder = Recorder()
    feeds[0].listen(recorder)
    redis.pause()
    await until(lambda: "disconnected" in recorder.heard)
    assert not feeds[0].connected
    with pytest.raises(FeedUnavailable):
        await feeds[0].publish([Change(Table.PAVE, "USERS#u1")])

    redis.resume()
    await until(lambda: feeds[0].connected and feeds[1].connected)
    await until(lambda: ("resync", "change feed reconnected") in recorder.heard)
    assert recorder.heard == ["disconnected", ("resync", "change feed reconnected")]
    # And it carries changes again.
    await feeds[1].publish([Change(Table.PAVE, "USERS#u2")])
    await until(lambda: Change(Table.PAVE, "USERS#u2") in recorder.heard)


async def test_a_gap_in_a_publishers_numbers_makes_the_listeners_resync(
    redis: RedisServer, feeds: list[RedisChangeFeed]
) -> None:
    recorder = Recorder()
    feeds[0].listen(recorder)
    client: coredis.Redis[bytes] = coredis.Redis.from_url(redis.uri)
    for number in (1, 2, 4):
        body = {"p": "elsewhere", "n": number, "c": [["pave", f"USERS#{number}"]]}
        await client.publish("insight-gateway:changes", orjson.dumps(body))
    await until(lambda: len(recorder.heard) == 4)
    assert recorder.heard == [
        Change(Table.PAVE, "USERS#1"),
        Change(Table.PAVE, "USERS#2"),
        ("resync", "change feed lost messages"),
        Change(Table.PAVE, "USERS#4"),
    ]
