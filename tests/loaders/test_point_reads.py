from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from loaders.dynamodb import Dynamo
from loaders.entities import BALANCE_SETTINGS, PAYDAY
from loaders.point_reads import PointReadLoader
from loaders.tables import TableNames
from tests.conftest import NOW, CallCounter

if TYPE_CHECKING:
    from types_aiobotocore_dynamodb import DynamoDBClient

NOW_S = int(NOW.timestamp())


async def test_keys_of_one_tick_go_out_in_pages_of_100_across_tables(
    dynamodb: DynamoDBClient, tables: TableNames, dynamodb_calls: CallCounter
) -> None:
    await dynamodb.put_item(
        TableName=tables.pave,
        Item={"PK": {"S": "PAYDAY#u-7"}, "SK": {"S": "PREDICTION"}, "ttl": {"N": str(NOW_S + 1)}},
    )
    await dynamodb.put_item(
        TableName=tables.pave,
        Item={"PK": {"S": "PAYDAY#u-8"}, "SK": {"S": "PREDICTION"}, "ttl": {"N": str(NOW_S)}},
    )
    await dynamodb.put_item(
        TableName=tables.balance_settings,
        Item={"user_id": {"S": "u-7"}, "low_balance_alert": {"N": "25"}},
    )
    dynamodb_calls.reset()
    loader = PointReadLoader(Dynamo(dynamodb, tables), NOW)
    wanted = [PAYDAY.key(user_id=f"u-{i}") for i in range(150)] + [
        BALANCE_SETTINGS.key(user_id=f"u-{i}") for i in range(100)
    ]
    # Duplicates ride along without costing a key.
    results = await asyncio.gather(*(loader.load(key) for key in [*wanted, *wanted[:20]]))
    assert dynamodb_calls.calls == {"BatchGetItem": 3}
    sizes = [
        sum(len(table["Keys"]) for table in params["RequestItems"].values())
        for _, params in dynamodb_calls.requests
    ]
    assert sorted(sizes) == [50, 100, 100]
    found = {i for i, item in enumerate(results[:250]) if item is not None}
    # u-7's payday and settings are found; u-8's payday expired exactly now.
    assert found == {7, 157}
