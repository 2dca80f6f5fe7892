"""The Redis change feed, against a real `redis-server`: every replica's listeners hear every
publish (the publisher's too), in order; a frozen Redis cuts the feed off (`disconnected`),
and once it answers again the listeners resync; a gap in a publisher's numbers resyncs."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable, Iterator

import coredis
import orjson
import pytest

from loaders.live.changes import Change, ShardPosition
from loaders.live.changes.factory import open_change_feed
from loaders.live.changes.redis_feed import FeedUnavailable, RedisChangeFeed
from loaders.tables import Table
from support.redis_server import RedisServer
from tests.change_recorder import Recorder


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


LOST = ("resync", "change feed lost messages")


#: (name, the numbers one publisher's messages carry, where the listeners resync: the index of
#: the message they resync before → how many messages the warning says were lost).
SEQUENCES: list[tuple[str, list[int], dict[int, int]]] = [
    ("in order", [1, 2, 3], {}),
    ("a gap", [1, 2, 5], {2: 2}),
    ("heard first past 1", [7, 8], {}),
    ("a number again", [1, 2, 2, 3], {}),
    ("a new run", [1, 2, 3, 1, 2], {}),
    ("a new run heard past its first", [1, 2, 3, 2, 3], {3: 1}),
    ("a gap in a new run", [1, 2, 3, 1, 3], {4: 1}),
]


@pytest.mark.parametrize(("name", "numbers", "resyncs"), SEQUENCES, ids=[s[0] for s in SEQUENCES])
async def test_the_listeners_resync_only_where_a_publishers_messages_were_lost(
    redis: RedisServer,
    feeds: list[RedisChangeFeed],
    caplog: pytest.LogCaptureFixture,
    name: str,
    numbers: list[int],
    resyncs: dict[int, int],
) -> None:
    recorder = Recorder()
    feeds[0].listen(recorder)
    client: coredis.Redis[bytes] = coredis.Redis.from_url(redis.uri)
    for index, number in enumerate(numbers):
        body = {"p": "elsewhere", "n": number, "c": [["pave", f"USERS#{index}"]]}
        await client.publish("insight-gateway:changes", orjson.dumps(body))
    # Every message is delivered (a number heard again too: at least once).
    expected: list[object] = []
    for index in range(len(numbers)):
        expected += [LOST] if index in resyncs else []
        expected.append(Change(Table.PAVE, f"USERS#{index}"))
    await until(lambda: len(recorder.heard) >= len(expected))
    await asyncio.sleep(0.1)  # and nothing more comes
    assert recorder.heard == expected
    # Each of the two replicas' feeds says so (only there).
    warnings = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert sorted(warnings) == sorted(
        f"change feed: {lost} messages lost from elsewhere; listeners resync"
        for lost in resyncs.values()
        for _ in feeds
    )
