from __future__ import annotations

from typing import TYPE_CHECKING

from loaders.tables import Table, TableNames

if TYPE_CHECKING:
    from types_aiobotocore_dynamodb import DynamoDBClient


async def test_create_tables_makes_the_contract_key_schemas(
    dynamodb: DynamoDBClient, tables: TableNames
) -> None:
    expected = {
        Table.PAVE: [("PK", "HASH"), ("SK", "RANGE")],
        Table.INCOME_DETECTION: [("PK", "HASH"), ("SK", "RANGE")],
        Table.DATACAPTURE: [("PK", "HASH"), ("SK", "RANGE")],
        Table.BALANCE_SETTINGS: [("user_id", "HASH")],
        Table.LOCKS: [("key", "HASH")],
    }
    for table, schema in expected.items():
        described = await dynamodb.describe_table(TableName=tables.name(table))
        key_schema = [(k["AttributeName"], k["KeyType"]) for k in described["Table"]["KeySchema"]]
        assert key_schema == schema
        ttl = await dynamodb.describe_time_to_live(TableName=tables.name(table))
        status = ttl["TimeToLiveDescription"]
        if table in (Table.BALANCE_SETTINGS, Table.LOCKS):
            assert status["TimeToLiveStatus"] == "DISABLED"
        else:
            assert status == {"TimeToLiveStatus": "ENABLED", "AttributeName": "ttl"}
