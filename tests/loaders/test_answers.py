"""A read answers now when the request or the coherent cache already knows it (a value, no
future to await), and later otherwise (an awaitable, sent with the tick's other reads)."""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING

from loaders.answers import pending, settled
from loaders.cache import STREAMED_TABLES, CacheReader, CoherentCache
from loaders.dynamodb import Dynamo
from loaders.live.changes import ShardPosition
from loaders.live.feed_watch import FeedWatch
from loaders.point_reads import PointReadLoader
from loaders.queries import QueryLoader
from loaders.rows.balance_settings import BalanceSettingsRow
from loaders.tables import TableNames
from loaders.user_reads import UserReads
from tests.conftest import NOW, CallCounter

if TYPE_CHECKING:
    from types_aiobotocore_dynamodb import DynamoDBClient

WALL = 1_000_000.0


def whole_cache() -> CoherentCache:
    cache = CoherentCache(1 << 20, FeedWatch(clock=lambda: WALL))
    for table in STREAMED_TABLES:
        cache.position(ShardPosition(table, "shard-1", WALL))
    return cache


def request(dynamo: Dynamo, cache: CoherentCache) -> UserReads:
    """One request's reads over the cache."""
    reader = CacheReader(cache, NOW)
    return UserReads(
        PointReadLoader(dynamo, NOW, cache=reader), QueryLoader(dynamo, NOW, cache=reader), NOW
    )


async def test_a_cached_read_answers_now_and_a_miss_after_its_call(
    dynamodb: DynamoDBClient, tables: TableNames, dynamodb_calls: CallCounter
) -> None:
    await dynamodb.put_item(
        TableName=tables.balance_settings,
        Item={"user_id": {"S": "u-7"}, "low_balance_alert": {"N": "25"}},
    )
    dynamodb_calls.reset()
    dynamo, cache = Dynamo(dynamodb, tables), whole_cache()

    first = request(dynamo, cache)
    found, absent = first.low_balance_alert("u-7"), first.low_balance_alert("u-9")
    assert pending(found)
    assert pending(absent)
    assert await settled(found) == BalanceSettingsRow("u-7", Decimal(25))
    assert await settled(absent) is None
    assert dynamodb_calls.calls == {"BatchGetItem": 1}

    second = request(dynamo, cache)
    hits = cache.hits
    # Values, not awaitables: the same rows, the absent one included, and no call.
    assert second.low_balance_alert("u-7") == BalanceSettingsRow("u-7", Decimal(25))
    assert second.low_balance_alert("u-9") is None
    # A read asked again in the request is its own answer, not another hit.
    assert second.low_balance_alert("u-7") == BalanceSettingsRow("u-7", Decimal(25))
    assert cache.hits - hits == 2
    assert dynamodb_calls.calls == {"BatchGetItem": 1}


async def test_without_the_cache_a_read_known_to_the_request_answers_now(
    dynamodb: DynamoDBClient, tables: TableNames, dynamodb_calls: CallCounter
) -> None:
    dynamodb_calls.reset()
    dynamo = Dynamo(dynamodb, tables)
    reads = UserReads(PointReadLoader(dynamo, NOW), QueryLoader(dynamo, NOW), NOW)
    months = reads.savings_months("u-1", 3)
    assert pending(months)
    assert await settled(months) == []
    # Read once in this request: the same read again is answered at once.
    assert reads.savings_months("u-1", 3) == []
    assert dynamodb_calls.calls == {"BatchGetItem": 1}
