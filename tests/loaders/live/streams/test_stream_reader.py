"""The stream readers over moto's DynamoDB Streams: writes made straight to DynamoDB reach
the feed as `Change(table, partition key)`; the lease item in `locks` is dynamolock's, its
data the checkpoint, written only after the changes before it were published."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import orjson

from loaders.live.changes import Change, ShardPosition
from loaders.live.streams import StreamsApi, lease_key
from loaders.tables import Table, TableNames
from tests.loaders.live.streams.conftest import Readers, until

if TYPE_CHECKING:
    from types_aiobotocore_dynamodb import DynamoDBClient


def reading(readers: Readers, tables: Sequence[Table]) -> bool:
    """Every table's shard has answered a GetRecords (its iterator is open)."""
    seen = {item.table for item in readers.heard if isinstance(item, ShardPosition)}
    return set(tables) <= seen


async def shard_of(api: StreamsApi, dynamodb: DynamoDBClient, table_name: str) -> str:
    arn = (await dynamodb.describe_table(TableName=table_name))["Table"]["LatestStreamArn"]
    answer = await api.describe_stream(StreamArn=arn)
    shard_id: str = answer["StreamDescription"]["Shards"][0]["ShardId"]
    return shard_id


async def test_writes_straight_to_dynamodb_reach_the_feed_and_capture_and_lock_writes_do_not(
    readers: Readers, dynamodb: DynamoDBClient, tables: TableNames, streams_api: StreamsApi
) -> None:
    async with readers.running(streams_api) as reader:
        await until(
            lambda: reading(readers, [Table.PAVE, Table.INCOME_DETECTION, Table.BALANCE_SETTINGS])
        )
        assert reader.held == 3
        profile = {"PK": {"S": "USERS#u1"}, "SK": {"S": "PROFILE"}}
        await dynamodb.put_item(TableName=tables.pave, Item=profile)
        await dynamodb.put_item(
            TableName=tables.income_detection,
            Item={"PK": {"S": "INCOME_DETECTION#u2"}, "SK": {"S": "RUN#1"}},
        )
        await dynamodb.update_item(
            TableName=tables.balance_settings,
            Key={"user_id": {"S": "u1"}},
            UpdateExpression="SET low_balance_alert = :v",
            ExpressionAttributeValues={":v": {"N": "10"}},
        )
        await dynamodb.put_item(
            TableName=tables.datacapture,
            Item={"PK": {"S": "FLOATME_V2#u1"}, "SK": {"S": "EVENT#1"}},
        )
        await dynamodb.put_item(TableName=tables.locks, Item={"key": {"S": "some-lock"}})
        await dynamodb.delete_item(
            TableName=tables.pave, Key={"PK": profile["PK"], "SK": profile["SK"]}
        )
        expected = {
            Change(Table.PAVE, "USERS#u1"),
            Change(Table.INCOME_DETECTION, "INCOME_DETECTION#u2"),
            Change(Table.BALANCE_SETTINGS, "u1"),
        }
        await until(lambda: expected <= set(readers.changes()))
        # Two more polls of every shard: nothing else arrives.
        count = len(readers.heard)
        await until(lambda: len(readers.heard) >= count + 6)
    assert set(readers.changes()) == expected
    # The put and the delete of USERS#u1: one change each (two batches) or one (one batch).
    assert 1 <= readers.changes().count(Change(Table.PAVE, "USERS#u1")) <= 2


async def test_the_lease_is_a_dynamolock_item_whose_data_is_the_checkpoint(
    readers: Readers, dynamodb: DynamoDBClient, tables: TableNames, streams_api: StreamsApi
) -> None:
    settings = Table.BALANCE_SETTINGS
    shard_id = await shard_of(streams_api, dynamodb, tables.balance_settings)
    async with readers.running(streams_api, tables=[settings]) as reader:
        await until(lambda: reading(readers, [settings]))
        # Reading began at LATEST (a first start): the data says since when.
        assert set(await readers.lease_data(settings, shard_id)) == {"since"}
        await dynamodb.put_item(TableName=tables.balance_settings, Item={"user_id": {"S": "u7"}})
        await until(lambda: Change(settings, "u7") in readers.heard)
        records = await _all_records(streams_api, dynamodb, tables.balance_settings, shard_id)
        last = records[-1]["dynamodb"]["SequenceNumber"]
        await readers.until_lease_data(settings, shard_id, {"seq": last})
        item = await readers.lease_item(settings, shard_id)
        assert item is not None
        assert set(item) == {"key", "ownerName", "leaseDuration", "recordVersionNumber", "data"}
        assert item["key"] == {"S": lease_key(tables.balance_settings, shard_id)}
        assert item["ownerName"] == {"S": reader.owner_name}
        assert item["leaseDuration"] == {"S": "2s"}
        assert re.fullmatch(r"\d{19}:[A-Z2-7]{52}", item["recordVersionNumber"]["S"])
        assert orjson.loads(item["data"]["B"]) == {"seq": last}
    # Stopped: released (kept, with its checkpoint) for the next replica.
    item = await readers.lease_item(settings, shard_id)
    assert item is not None
    assert item["isReleased"] == {"S": "1"}
    assert orjson.loads(item["data"]["B"]) == {"seq": last}


async def _all_records(
    api: StreamsApi, dynamodb: DynamoDBClient, table_name: str, shard_id: str
) -> list[dict[str, Any]]:
    arn = (await dynamodb.describe_table(TableName=table_name))["Table"]["LatestStreamArn"]
    iterator = (
        await api.get_shard_iterator(
            StreamArn=arn, ShardId=shard_id, ShardIteratorType="TRIM_HORIZON"
        )
    )["ShardIterator"]
    records: list[dict[str, Any]] = (await api.get_records(ShardIterator=iterator))["Records"]
    return records


async def test_two_replicas_starting_together_share_the_shards(
    readers: Readers, streams_api: StreamsApi
) -> None:
    async with readers.running(streams_api) as first, readers.running(streams_api) as second:
        await until(lambda: first.held + second.held == 3)
        # A few more ticks: nobody takes more than its share, nothing changes hands.
        await asyncio.sleep(1.0)
        assert sorted([first.held, second.held]) == [1, 2]
        assert set(first.held_shards()).isdisjoint(second.held_shards())


async def test_a_lease_taken_by_another_owner_stops_the_reader_and_keeps_its_checkpoint(
    readers: Readers, dynamodb: DynamoDBClient, tables: TableNames, streams_api: StreamsApi
) -> None:
    settings = Table.BALANCE_SETTINGS
    shard_id = await shard_of(streams_api, dynamodb, tables.balance_settings)
    key = {"key": {"S": lease_key(tables.balance_settings, shard_id)}}
    async with readers.running(streams_api, tables=[settings], lease_seconds=60) as reader:
        await until(lambda: reading(readers, [settings]))
        # Another owner's write (as after a takeover) replaces the version and the data.
        theirs = orjson.dumps({"seq": "theirs"})
        await dynamodb.update_item(
            TableName=tables.locks,
            Key=key,
            UpdateExpression="SET ownerName = :o, recordVersionNumber = :v, #d = :d",
            ExpressionAttributeNames={"#d": "data"},
            ExpressionAttributeValues={
                ":o": {"S": "OTHER"},
                ":v": {"S": "2:OTHER"},
                ":d": {"B": theirs},
            },
        )
        await dynamodb.put_item(TableName=tables.balance_settings, Item={"user_id": {"S": "u8"}})
        await until(lambda: reader.held == 0)
        await asyncio.sleep(0.5)
    item = await readers.lease_item(settings, shard_id)
    assert item is not None
    assert item["ownerName"] == {"S": "OTHER"}
    assert bytes(item["data"]["B"]) == theirs
    assert "isReleased" not in item
