from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING, Any

from loaders.dynamodb import Dynamo
from loaders.expiry import Expiries
from loaders.keys import QueryKey
from loaders.queries import QueryLoader
from loaders.tables import Table, TableNames
from tests.conftest import NOW, CallCounter, decoded

if TYPE_CHECKING:
    from types_aiobotocore_dynamodb import DynamoDBClient

NOW_S = int(NOW.timestamp())


async def _put_scores(
    dynamodb: DynamoDBClient, tables: TableNames, count: int, expired: frozenset[int] = frozenset()
) -> None:
    for index in range(count):
        await dynamodb.put_item(
            TableName=tables.pave,
            Item={
                "PK": {"S": "USERS#u-1"},
                "SK": {"S": f"CASH_ADVANCE_SCORE#2026-11-{index + 1:02d}T00:00:00Z"},
                "type": {"S": "scores"},
                "score": {"N": str(index)},
                "ttl": {"N": str(NOW_S if index in expired else NOW_S + 86400)},
            },
        )


async def test_a_query_over_several_pages_returns_every_item(
    dynamodb: DynamoDBClient, tables: TableNames, dynamodb_calls: CallCounter
) -> None:
    await _put_scores(dynamodb, tables, 10)
    dynamodb_calls.reset()
    loader = QueryLoader(Dynamo(dynamodb, tables, query_page_size=3), NOW)
    items = await loader.load(QueryKey(Table.PAVE, "USERS#u-1", "CASH_ADVANCE_SCORE#"))
    assert [int(decoded(item)["score"]) for item in items] == list(range(10))
    # Pages of 3, 3, 3, 1; the last one has no LastEvaluatedKey.
    assert dynamodb_calls.calls == {"Query": 4}
    starts = ["ExclusiveStartKey" in params for _, params in dynamodb_calls.requests]
    assert starts == [False, True, True, True]


async def test_a_limit_stops_without_reading_further_pages(
    dynamodb: DynamoDBClient, tables: TableNames, dynamodb_calls: CallCounter
) -> None:
    await _put_scores(dynamodb, tables, 10)
    dynamodb_calls.reset()
    loader = QueryLoader(Dynamo(dynamodb, tables), NOW)
    query = QueryKey(Table.PAVE, "USERS#u-1", "CASH_ADVANCE_SCORE#", newest_first=True, limit=2)
    items = await loader.load(query)
    assert [int(decoded(item)["score"]) for item in items] == [9, 8]
    assert dynamodb_calls.calls == {"Query": 1}
    [(_, params)] = dynamodb_calls.requests
    assert params["Limit"] == 2
    assert params["ScanIndexForward"] is False


async def test_expired_items_do_not_count_toward_the_limit(
    dynamodb: DynamoDBClient, tables: TableNames, dynamodb_calls: CallCounter
) -> None:
    await _put_scores(dynamodb, tables, 10, expired=frozenset({9, 8, 6}))
    dynamodb_calls.reset()
    loader = QueryLoader(Dynamo(dynamodb, tables), NOW)
    query = QueryKey(Table.PAVE, "USERS#u-1", "CASH_ADVANCE_SCORE#", newest_first=True, limit=3)
    items = await loader.load(query)
    assert [int(decoded(item)["score"]) for item in items] == [7, 5, 4]
    # 3 read, 1 live; then 2 asked, 1 live (6 expired); then 1 asked, live.
    assert [params["Limit"] for _, params in dynamodb_calls.requests] == [3, 2, 1]


async def test_expired_items_are_dropped_and_the_earliest_live_expiry_noted(
    dynamodb: DynamoDBClient, tables: TableNames
) -> None:
    ttls: dict[str, dict[str, Any]] = {"a": {"N": str(NOW_S)}, "b": {"N": str(NOW_S + 60)}}
    ttls["c"] = {"N": str(NOW_S + 5)}
    ttls |= {"d": {"NULL": True}, "e": {"S": str(NOW_S - 1)}, "f": {"S": str(NOW_S + 1)}}
    # Numbers that are not written as whole seconds: compared as the Numbers they are.
    exponent = f"{Decimal(NOW_S + 30).scaleb(-9)}E9"
    ttls |= {"h": {"N": f"{NOW_S}.5"}, "i": {"N": f"{NOW_S - 1}.9"}, "j": {"N": exponent}}
    ttls["k"] = {"N": f"{NOW_S + 1:038d}"}  # 38 digits, DynamoDB's most
    for name, ttl in [*ttls.items(), ("g", None)]:
        item = {"PK": {"S": "USERS#u-1"}, "SK": {"S": f"X#{name}"}}
        await dynamodb.put_item(TableName=tables.pave, Item=item | ({"ttl": ttl} if ttl else {}))
    expiries = Expiries()
    loader = QueryLoader(Dynamo(dynamodb, tables), NOW, expiries=expiries)
    items = await loader.load(QueryKey(Table.PAVE, "USERS#u-1", "X#"))
    # Expired at the request's start (`a`, `e`) are dropped; a ttl that is not a Number is
    # read as `is_live` reads it; only the Numbers' expiries are noted, the earliest kept.
    live = ["X#b", "X#c", "X#d", "X#f", "X#g", "X#h", "X#j", "X#k"]
    assert [decoded(item)["SK"] for item in items] == live
    assert expiries.earliest_of("u-1") == Decimal(f"{NOW_S}.5")
