"""A lock write whose answer was lost is retried by botocore and then fails its own
condition, on the item it wrote itself: the client must see its own version there and
hold the lock, not call it taken by another owner."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

import pytest

from gateway.resources import open_dynamo
from gateway.settings import Settings
from loaders.lock import LockClient, LockNotGranted
from loaders.tables import TableNames
from support.faults import FaultProxy, Lose, fault_proxy

if TYPE_CHECKING:
    from types_aiobotocore_dynamodb import DynamoDBClient


@pytest.fixture
async def proxy(endpoint_url: str) -> AsyncIterator[FaultProxy]:
    async with fault_proxy(endpoint_url) as proxy:
        yield proxy


@pytest.fixture
async def locks(tables: TableNames, proxy: FaultProxy) -> AsyncIterator[LockClient]:
    settings = Settings(dynamodb_endpoint_url=proxy.endpoint_url, tables=tables)
    async with open_dynamo(dataclasses.replace(settings, dynamodb_max_attempts=3)) as dynamo:
        yield LockClient(dynamo, owner_name="gateway-1")


async def stored(dynamodb: DynamoDBClient, tables: TableNames, key: str) -> dict[str, str]:
    answer = await dynamodb.get_item(
        TableName=tables.locks, Key={"key": {"S": key}}, ConsistentRead=True
    )
    return {name: value["S"] for name, value in answer["Item"].items() if "S" in value}


async def test_an_acquire_whose_answer_was_lost_holds_the_lock(
    locks: LockClient, proxy: FaultProxy, dynamodb: DynamoDBClient, tables: TableNames
) -> None:
    proxy.inject("PutItem", Lose(), times=1)
    lock = await locks.acquire("balance-alert:user_id:u-1")
    assert proxy.injected["PutItem"] == 1
    assert proxy.received["PutItem"] == 2
    item = await stored(dynamodb, tables, "balance-alert:user_id:u-1")
    assert (item["ownerName"], item["recordVersionNumber"]) == (
        "gateway-1",
        lock.record_version_number,
    )
    assert locks.is_held(lock)


async def test_another_owners_lock_is_still_refused(
    locks: LockClient, proxy: FaultProxy, dynamodb: DynamoDBClient, tables: TableNames
) -> None:
    item = {
        "key": {"S": "k"},
        "ownerName": {"S": "go-service"},
        "leaseDuration": {"S": "1m0s"},
        "recordVersionNumber": {"S": "v-go"},
    }
    await dynamodb.put_item(TableName=tables.locks, Item=item)
    with pytest.raises(LockNotGranted):
        await locks.acquire("k")


async def test_a_heartbeat_whose_answer_was_lost_keeps_the_lock(
    locks: LockClient, proxy: FaultProxy, dynamodb: DynamoDBClient, tables: TableNames
) -> None:
    lock = await locks.acquire("k")
    proxy.inject("UpdateItem", Lose(), times=1)
    await locks.send_heartbeat(lock)
    assert proxy.received["UpdateItem"] == 2
    assert not lock.lost
    item = await stored(dynamodb, tables, "k")
    assert item["recordVersionNumber"] == lock.record_version_number
