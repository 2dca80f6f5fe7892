"""The tables: the Insight Service's five, and the gateway's own table of idempotency keys
(SPEC section 9); their identities, configured names and key schemas."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from botocore.exceptions import ClientError

from loaders.entities import STREAMED_TABLES, TTL_TABLES
from loaders.table import Table

if TYPE_CHECKING:
    from types_aiobotocore_dynamodb import DynamoDBClient


__all__ = [
    "STREAMED_TABLES",
    "STREAM_SPECIFICATION",
    "TTL_TABLES",
    "Table",
    "TableNames",
    "create_missing_tables",
    "create_tables",
]

#: What `create_tables` enables on the streamed tables: changes name keys, the gateway re-reads.
STREAM_SPECIFICATION = {"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"}


@dataclass(frozen=True, slots=True)
class TableNames:
    pave: str = "site-pave"
    income_detection: str = "site-incomedetection"
    datacapture: str = "site-fmdatacapture"
    balance_settings: str = "user-balance-settings"
    locks: str = "locks"
    idempotency: str = "insight-gateway-idempotency"

    def name(self, table: Table) -> str:
        name: str = getattr(self, table.value)
        return name

    def all(self) -> dict[Table, str]:
        return {table: self.name(table) for table in Table}


async def create_tables(
    client: DynamoDBClient, names: TableNames, *, ttl: bool = True, streams: bool = True
) -> None:
    """Create the tables (on-demand billing), enable TTL on `ttl` where items have one
    and `KEYS_ONLY` streams on the streamed tables.

    Only for local DynamoDB (embedded mode, `create-tables`, tests): in AWS the
    tables belong to the Insight Service's infrastructure. `ttl=False` skips the TTL step,
    for an implementation without UpdateTimeToLive (dynalite); readers never rely on it,
    since they drop expired items themselves. `streams=False` creates no stream, for an
    implementation without DynamoDB Streams (dynalite; moto's server has them).
    """
    await asyncio.gather(
        *(
            _create_table(client, table, names.name(table), ttl=ttl, streams=streams)
            for table in Table
        )
    )


async def _create_table(
    client: DynamoDBClient, table: Table, name: str, *, ttl: bool = True, streams: bool = True
) -> None:
    partition, sort = table.key_names
    attributes = [{"AttributeName": partition, "AttributeType": "S"}]
    schema = [{"AttributeName": partition, "KeyType": "HASH"}]
    if sort is not None:
        attributes.append({"AttributeName": sort, "AttributeType": "S"})
        schema.append({"AttributeName": sort, "KeyType": "RANGE"})
    extra: dict[str, Any] = {}
    if streams and table in STREAMED_TABLES:
        extra["StreamSpecification"] = STREAM_SPECIFICATION
    try:
        await client.create_table(
            TableName=name,
            AttributeDefinitions=attributes,  # type: ignore[arg-type]
            KeySchema=schema,  # type: ignore[arg-type]
            BillingMode="PAY_PER_REQUEST",
            **extra,
        )
    except ClientError as error:
        # A CreateTable that timed out on a loaded machine is retried by botocore, and the
        # retry finds the table its first attempt made. Accepted only when it is the table
        # asked for: an older table under the name with other keys is an error.
        if error.response.get("Error", {}).get("Code") != "ResourceInUseException":
            raise
        described = await client.describe_table(TableName=name)
        found = [dict(key) for key in described["Table"]["KeySchema"]]
        if found != schema:
            raise ValueError(
                f"table {name} exists with the key schema {found}, not {schema}"
            ) from error
    waiter = client.get_waiter("table_exists")
    await waiter.wait(TableName=name, WaiterConfig={"Delay": 0.05, "MaxAttempts": 200})  # type: ignore[typeddict-item]
    if ttl and table in TTL_TABLES:
        await client.update_time_to_live(
            TableName=name, TimeToLiveSpecification={"Enabled": True, "AttributeName": "ttl"}
        )


async def create_missing_tables(
    client: DynamoDBClient, names: TableNames, *, streams: bool = True
) -> list[str]:
    """Create those of the tables that do not exist yet (local DynamoDB only, as
    `create_tables`); returns the names it created, so running it twice is harmless."""
    existing = await _existing_table_names(client)
    missing = [(table, names.name(table)) for table in Table if names.name(table) not in existing]
    await asyncio.gather(
        *(_create_table(client, table, name, streams=streams) for table, name in missing)
    )
    return [name for _, name in missing]


async def _existing_table_names(client: DynamoDBClient) -> set[str]:
    names: set[str] = set()
    async for page in client.get_paginator("list_tables").paginate():
        names.update(page.get("TableNames", []))
    return names
