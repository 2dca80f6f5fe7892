"""A read answers now when the request or the coherent cache already knows it (a value, no
future to await), and later otherwise (`Later`: its loads and its rule)."""

from __future__ import annotations

import asyncio
from decimal import Decimal
from typing import TYPE_CHECKING

import pytest

from loaders.answers import Later, pending, then, when_all
from loaders.cache import STREAMED_TABLES, CacheReader, CoherentCache
from loaders.dynamodb import Dynamo
from loaders.entities import BALANCE_SETTINGS
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


async def put_settings_of_u7(dynamodb: DynamoDBClient, tables: TableNames) -> None:
    """u-7's balance settings: a low-balance alert at $25."""
    await dynamodb.put_item(
        TableName=tables.balance_settings,
        Item={"user_id": {"S": "u-7"}, "low_balance_alert": {"N": "25"}},
    )


async def test_a_cached_read_answers_now_and_a_miss_after_its_call(
    dynamodb: DynamoDBClient, tables: TableNames, dynamodb_calls: CallCounter
) -> None:
    await put_settings_of_u7(dynamodb, tables)
    dynamodb_calls.reset()
    dynamo, cache = Dynamo(dynamodb, tables), whole_cache()

    first = request(dynamo, cache)
    found, absent = first.low_balance_alert("u-7"), first.low_balance_alert("u-9")
    assert isinstance(found, Later)
    assert isinstance(absent, Later)
    assert await found == BalanceSettingsRow("u-7", Decimal(25))
    assert await absent is None
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


async def test_what_the_cache_answered_is_the_requests_until_the_request_writes_it(
    dynamodb: DynamoDBClient, tables: TableNames, dynamodb_calls: CallCounter
) -> None:
    await put_settings_of_u7(dynamodb, tables)
    dynamo, cache = Dynamo(dynamodb, tables), whole_cache()
    await request(dynamo, cache).low_balance_alert("u-7")  # type: ignore[misc]
    dynamodb_calls.reset()

    reads = request(dynamo, cache)
    key = BALANCE_SETTINGS.key(user_id="u-7")
    known = reads.points.answer(key)
    assert known == {"user_id": "u-7", "low_balance_alert": Decimal(25)}
    hits = cache.hits
    # graphql-core's path loads what the compiled one was answered: the same item, at once.
    loaded = reads.points.load(key)
    assert loaded.done()
    assert loaded.result() is known
    assert reads.points.answer(key) is known
    assert cache.hits == hits
    # Written by the request: its later reads see the write, not what the cache answered.
    reads.wrote(key, {"user_id": "u-7", "low_balance_alert": Decimal(30)})
    assert reads.low_balance_alert("u-7") == BalanceSettingsRow("u-7", Decimal(30))
    assert await reads.points.load(key) == {"user_id": "u-7", "low_balance_alert": Decimal(30)}
    assert dynamodb_calls.calls == {}


async def test_without_the_cache_a_read_known_to_the_request_answers_now(
    dynamodb: DynamoDBClient, tables: TableNames, dynamodb_calls: CallCounter
) -> None:
    dynamodb_calls.reset()
    dynamo = Dynamo(dynamodb, tables)
    reads = UserReads(PointReadLoader(dynamo, NOW), QueryLoader(dynamo, NOW), NOW)
    months = reads.savings_months("u-1", 3)
    assert isinstance(months, Later)
    assert await months == []
    # Read once in this request: the same read again is answered at once.
    assert reads.savings_months("u-1", 3) == []
    assert dynamodb_calls.calls == {"BatchGetItem": 1}


async def test_a_later_answer_waits_on_its_loads_through_nested_answers() -> None:
    loop = asyncio.get_running_loop()
    mine: asyncio.Future[list[str]] = loop.create_future()
    items: asyncio.Future[list[str]] = loop.create_future()

    def first(rows: list[str]) -> str:
        return rows[0]

    newest = then(mine, first)
    answer = when_all((newest, items, 3), lambda first, found, n: (first, found, n))
    assert isinstance(answer, Later)
    assert pending(answer)
    assert list(answer.loads()) == [mine, items]
    mine.set_result(["m-2", "m-1"])
    items.set_result(["e-1"])
    # Settled without an await once its loads are done; awaited, the same answer.
    assert answer.settle() == ("m-2", ["e-1"], 3)
    assert await answer == ("m-2", ["e-1"], 3)


async def test_a_later_answer_raises_its_failed_load_and_leaves_none_unretrieved() -> None:
    loop = asyncio.get_running_loop()
    failed, fine = loop.create_future(), loop.create_future()
    answer = when_all((failed, fine), lambda a, b: (a, b))
    failed.set_exception(RuntimeError("throttled"))
    fine.set_result(1)
    assert isinstance(answer, Later)
    with pytest.raises(RuntimeError, match="throttled"):
        answer.settle()
    with pytest.raises(RuntimeError, match="throttled"):
        await answer


def test_answers_known_now_are_values() -> None:
    assert then(2, lambda n: n * 10) == 20
    assert when_all((1, 2), lambda a, b: a + b) == 3
    assert not pending(3)
