from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

import pytest

from loaders.tables import Table, TableNames, create_tables
from tests.conftest import unique_table_names
from tests.loaders.conftest import skip_on_dynalite

if TYPE_CHECKING:
    from types_aiobotocore_dynamodb import DynamoDBClient


KEY_SCHEMAS = {
    Table.PAVE: [("PK", "HASH"), ("SK", "RANGE")],
    Table.INCOME_DETECTION: [("PK", "HASH"), ("SK", "RANGE")],
    Table.DATACAPTURE: [("PK", "HASH"), ("SK", "RANGE")],
    Table.BALANCE_SETTINGS: [("user_id", "HASH")],
    Table.LOCKS: [("key", "HASH")],
}


async def test_create_tables_makes_the_contract_key_schemas(
    dynamodb: DynamoDBClient, tables: TableNames
) -> None:
    for table, schema in KEY_SCHEMAS.items():
        described = await dynamodb.describe_table(TableName=tables.name(table))
        key_schema = [(k["AttributeName"], k["KeyType"]) for k in described["Table"]["KeySchema"]]
        assert key_schema == schema


async def test_create_tables_enables_ttl_where_items_have_one(
    dynamodb: DynamoDBClient, tables: TableNames, backend: str
) -> None:
    skip_on_dynalite(backend, "UpdateTimeToLive/DescribeTimeToLive")
    for table in KEY_SCHEMAS:
        ttl = await dynamodb.describe_time_to_live(TableName=tables.name(table))
        status = ttl["TimeToLiveDescription"]
        if table in (Table.BALANCE_SETTINGS, Table.LOCKS):
            assert status["TimeToLiveStatus"] == "DISABLED"
        else:
            assert status == {"TimeToLiveStatus": "ENABLED", "AttributeName": "ttl"}


async def test_a_table_already_there_is_accepted_only_with_the_keys_asked_for(
    dynamodb: DynamoDBClient, tables: TableNames
) -> None:
    # The retry of a CreateTable that timed out finds the table its first attempt made.
    await create_tables(dynamodb, tables, ttl=False, streams=False)
    # An older table under the name, with other keys, is not the one asked for.
    clashing = dataclasses.replace(unique_table_names(), pave=tables.locks)
    with pytest.raises(ValueError, match=f"table {tables.locks} exists with the key schema"):
        await create_tables(dynamodb, clashing, ttl=False, streams=False)
