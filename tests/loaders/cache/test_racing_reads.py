"""A read that started before a change to its partition is not stored: the two cores over
moto's server, with a change arriving while DynamoDB's answer is on its way."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import pytest

from loaders.cache import CacheReader, CoherentCache
from loaders.dynamodb import Dynamo
from loaders.keys import ItemKey, QueryKey
from loaders.live.changes import Change, ShardPosition
from loaders.live.feed_watch import FeedWatch
from loaders.point_reads import PointReadLoader
from loaders.queries import QueryLoader
from loaders.tables import Table, TableNames
from tests.conftest import NOW, CallCounter

if TYPE_CHECKING:
    from types_aiobotocore_dynamodb import DynamoDBClient

PK = "USERS#u-1"
KEY = ItemKey(Table.PAVE, PK, "A#1")
PREFIX = QueryKey(Table.PAVE, PK, "A#")


def whole_feed_cache() -> CoherentCache:
    cache = CoherentCache(1 << 20, FeedWatch(max_lag_seconds=3600))
    for table in cache.watch.streamed_tables:
        cache.position(ShardPosition(table, "shard-1", time.time()))
    return cache


async def put(dynamodb: DynamoDBClient, tables: TableNames, version: str) -> None:
    item = {"PK": {"S": PK}, "SK": {"S": "A#1"}, "version": {"S": version}}
    await dynamodb.put_item(TableName=tables.pave, Item=item)


async def read_point(dynamo: Dynamo, cache: CoherentCache) -> Any:
    points = PointReadLoader(dynamo, NOW, cache=CacheReader(cache, NOW))
    return await points.load(KEY)


async def read_prefix(dynamo: Dynamo, cache: CoherentCache) -> Any:
    queries = QueryLoader(dynamo, NOW, cache=CacheReader(cache, NOW))
    return (await queries.load(PREFIX))[0]


async def read_whole(dynamo: Dynamo, cache: CoherentCache) -> Any:
    reader = CacheReader(cache, NOW)
    queries = QueryLoader(dynamo, NOW, cache=reader)
    points = PointReadLoader(dynamo, NOW, queries._collections, cache=reader)
    queries.collect(Table.PAVE, PK)
    return await points.load(KEY)


READS: dict[str, Callable[[Dynamo, CoherentCache], Awaitable[Any]]] = {
    "point": read_point,
    "prefix": read_prefix,
    "whole partition": read_whole,
}


@pytest.mark.parametrize("read", list(READS.values()), ids=list(READS))
async def test_a_read_racing_a_change_is_not_stored(
    dynamodb: DynamoDBClient,
    tables: TableNames,
    dynamo: Dynamo,
    dynamodb_calls: CallCounter,
    read: Callable[[Dynamo, CoherentCache], Awaitable[Any]],
) -> None:
    await put(dynamodb, tables, "old")
    cache = whole_feed_cache()
    real_call = dynamo.call

    async def racing(operation: str, **params: Any) -> dict[str, Any]:
        answer = await real_call(operation, **params)
        # Another service writes; its change reaches the feed before this answer is stored.
        await put(dynamodb, tables, "new")
        cache.changes([Change(Table.PAVE, PK)])
        return answer

    dynamo.call = racing  # type: ignore[method-assign]
    assert (await read(dynamo, cache))["version"] == "old"
    dynamo.call = real_call  # type: ignore[method-assign]
    assert len(cache.store) == 0
    dynamodb_calls.reset()
    assert (await read(dynamo, cache))["version"] == "new"
    assert dynamodb_calls.total == 1
    # Read after the change: stored, and answered from the cache.
    dynamodb_calls.reset()
    assert (await read(dynamo, cache))["version"] == "new"
    assert dynamodb_calls.total == 0


async def test_a_partition_held_whole_is_taken_once_per_request(
    dynamodb: DynamoDBClient, tables: TableNames, dynamo: Dynamo, dynamodb_calls: CallCounter
) -> None:
    """A request reads a partition the cache holds whole once, as it would read it from
    DynamoDB: every read of it answers from those items (each counted as the cache's), even
    after a change drops the entry mid-request; the next request reads afresh."""
    await put(dynamodb, tables, "old")
    cache = whole_feed_cache()
    await read_whole(dynamo, cache)
    dynamodb_calls.reset()
    reader = CacheReader(cache, NOW)
    queries = QueryLoader(dynamo, NOW, cache=reader)
    points = PointReadLoader(dynamo, NOW, queries._collections, cache=reader)
    queries.collect(Table.PAVE, PK)
    hits = cache.hits
    assert points.answer(KEY)["version"] == "old"  # type: ignore[index]
    await put(dynamodb, tables, "new")
    cache.changes([Change(Table.PAVE, PK)])
    assert len(cache.store) == 0
    dynamodb_calls.reset()  # the put
    assert queries.answer(PREFIX)[0]["version"] == "old"  # type: ignore[index]
    assert (cache.hits - hits, dynamodb_calls.total) == (2, 0)
    assert (await read_whole(dynamo, cache))["version"] == "new"
    assert dynamodb_calls.total == 1
