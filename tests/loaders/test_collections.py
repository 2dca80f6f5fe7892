"""A partition read whole answers its point reads and prefix queries with no other call."""

from __future__ import annotations

import asyncio
import sys
from typing import TYPE_CHECKING

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from loaders.cache.items import row_of
from loaders.codec import Item, WireItem, from_wire
from loaders.collections import Collected, Collections
from loaders.dynamodb import Dynamo, DynamoDBFailure
from loaders.keys import ItemKey, QueryKey
from loaders.point_reads import PointReadLoader
from loaders.queries import QueryLoader
from loaders.tables import Table, TableNames
from tests.conftest import NOW, CallCounter, decoded

if TYPE_CHECKING:
    from types_aiobotocore_dynamodb import DynamoDBClient

NOW_S = int(NOW.timestamp())
PK = "USERS#u-1"


def _item(sk: str, *, expired: bool = False) -> dict[str, dict[str, str]]:
    return {
        "PK": {"S": PK},
        "SK": {"S": sk},
        "type": {"S": "x"},
        "ttl": {"N": str(NOW_S if expired else NOW_S + 60)},
    }


def _cores(dynamo: Dynamo) -> tuple[PointReadLoader, QueryLoader]:
    collections = Collections()
    return PointReadLoader(dynamo, NOW, collections), QueryLoader(dynamo, NOW, collections)


async def test_points_and_prefixes_come_from_the_one_query(
    dynamodb: DynamoDBClient, tables: TableNames, dynamo: Dynamo, dynamodb_calls: CallCounter
) -> None:
    for sk in ["A#1", "A#2", "A#3", "AB#1", "B#1", "VERIFICATION"]:
        await dynamodb.put_item(TableName=tables.pave, Item=_item(sk))
    await dynamodb.put_item(TableName=tables.pave, Item=_item("A#4", expired=True))
    await dynamodb.put_item(TableName=tables.pave, Item=_item("GONE", expired=True))
    dynamodb_calls.reset()
    points, queries = _cores(dynamo)
    queries.collect(Table.PAVE, PK)
    # All loaded in the same tick, as the resolvers of one selection do.
    found = points.load_many(
        [ItemKey(Table.PAVE, PK, sk) for sk in ("VERIFICATION", "GONE", "NOPE")]
    )
    queried = queries.load_many(
        [
            QueryKey(Table.PAVE, PK, "A#", newest_first=True, limit=2),
            QueryKey(Table.PAVE, PK, "A#"),
            QueryKey(Table.PAVE, PK, "B#"),
            QueryKey(Table.PAVE, PK),
        ]
    )
    verification, gone, absent = await found
    newest_two, oldest_first, b, everything = await queried
    assert verification is not None
    assert decoded(verification)["SK"] == "VERIFICATION"
    assert gone is None  # expired at NOW: absent for every reader
    assert absent is None
    assert [decoded(i)["SK"] for i in newest_two] == ["A#3", "A#2"]  # A#4 expired: not counted
    assert [decoded(i)["SK"] for i in oldest_first] == ["A#1", "A#2", "A#3"]
    assert [decoded(i)["SK"] for i in b] == ["B#1"]
    assert len(everything) == 6
    assert dynamodb_calls.calls == {"Query": 1}
    [(_, params)] = dynamodb_calls.requests
    assert ":prefix" not in params["ExpressionAttributeValues"]


async def test_other_partitions_and_tables_are_read_as_usual(
    dynamodb: DynamoDBClient, tables: TableNames, dynamo: Dynamo, dynamodb_calls: CallCounter
) -> None:
    points, queries = _cores(dynamo)
    queries.collect(Table.PAVE, PK)
    await asyncio.gather(
        points.load(ItemKey(Table.PAVE, "PAYDAY#u-1", "PREDICTION")),
        points.load(ItemKey(Table.BALANCE_SETTINGS, "u-1")),
        queries.load(QueryKey(Table.PAVE, "MINE#u-1", "TIME#", newest_first=True, limit=1)),
        points.load(ItemKey(Table.PAVE, PK, "VERIFICATION")),
    )
    assert dynamodb_calls.calls == {"Query": 2, "BatchGetItem": 1}


async def test_a_failed_collection_fails_every_read_it_answers(
    dynamodb: DynamoDBClient, tables: TableNames
) -> None:
    missing = TableNames(pave="no-such-table", balance_settings=tables.balance_settings)
    points, queries = _cores(Dynamo(dynamodb, missing))
    queries.collect(Table.PAVE, PK)
    point = points.load(ItemKey(Table.PAVE, PK, "VERIFICATION"))
    prefix = queries.load(QueryKey(Table.PAVE, PK, "A#"))
    other = points.load(ItemKey(Table.BALANCE_SETTINGS, "u-1"))
    with pytest.raises(DynamoDBFailure):
        await point
    with pytest.raises(DynamoDBFailure):
        await prefix
    assert await other is None  # a read outside the partition does not share its failure


async def test_the_query_goes_out_with_the_reads_asked_in_the_same_pass(
    dynamo: Dynamo, dynamodb_calls: CallCounter
) -> None:
    # The plan collects the partition and asks for every read in one synchronous pass (the
    # compiled operation), so the partition's Query is sent at once, in the batch of the
    # other Queries: nothing holds it back a tick.
    points, queries = _cores(dynamo)
    batches: list[int] = []
    real_batch = queries.batch_load_fn

    async def counted(keys: list[QueryKey]) -> list[list[object] | BaseException]:
        batches.append(len(keys))
        return await real_batch(keys)

    queries.batch_load_fn = counted  # type: ignore[method-assign,assignment]
    queries.collect(Table.PAVE, PK)
    mine = QueryKey(Table.PAVE, "MINE#u-1", "TIME#", newest_first=True, limit=1)
    await asyncio.gather(queries.load(mine), points.load(ItemKey(Table.PAVE, PK, "ALERT#u-1")))
    assert batches == [2]  # the partition and the latest mine, together
    assert dynamodb_calls.calls == {"Query": 2}


async def test_an_item_is_decoded_only_when_a_row_is_built_of_it(
    dynamodb: DynamoDBClient, tables: TableNames, dynamo: Dynamo, monkeypatch: pytest.MonkeyPatch
) -> None:
    decoded_keys: list[str] = []

    def counted(item: WireItem) -> Item:
        decoded_keys.append(item["SK"]["S"])
        return from_wire(item)

    monkeypatch.setattr("loaders.cache.items.from_wire", counted)
    for n in range(20):
        await dynamodb.put_item(TableName=tables.pave, Item=_item(f"A#{n:02d}"))
    await dynamodb.put_item(TableName=tables.pave, Item=_item("VERIFICATION"))
    await dynamodb.put_item(TableName=tables.pave, Item=_item("GONE", expired=True))
    collections = Collections()
    points = PointReadLoader(dynamo, NOW, collections)
    queries = QueryLoader(dynamo, NOW, collections)
    queries.collect(Table.PAVE, PK)
    point = points.load(ItemKey(Table.PAVE, PK, "VERIFICATION"))
    newest = queries.load(QueryKey(Table.PAVE, PK, "A#", newest_first=True, limit=2))
    collected = collections.derive((Table.PAVE, PK), lambda whole: whole)
    assert collected is not None
    verification, newest_two, whole = await point, await newest, await collected
    assert len(whole) == 21  # the expired item is not even kept
    assert decoded_keys == []  # picked, not decoded

    def sort_key(item: Item) -> str:
        return str(item["SK"])

    assert [row_of(sort_key, item) for item in newest_two] == ["A#19", "A#18"]
    assert verification is not None
    assert row_of(sort_key, verification) == row_of(sort_key, verification) == "VERIFICATION"
    # The point and the two newest, each once (a row is kept beside its item).
    assert sorted(decoded_keys) == ["A#18", "A#19", "VERIFICATION"]


#: Sort-key characters around the edges of the order: the prefix's successor, the last code
#: point (which has none), and text of more than one byte in UTF-8.
SK_CHARACTERS = st.sampled_from(["#", "$", "A", "B", "a", "é", "\uffff", chr(sys.maxunicode)])


@settings(max_examples=400, deadline=None)
@given(
    sort_keys=st.lists(st.text(SK_CHARACTERS, max_size=4), max_size=12, unique=True),
    prefix=st.text(SK_CHARACTERS, max_size=3),
    newest_first=st.booleans(),
    limit=st.none() | st.integers(0, 5),
)
def test_a_query_of_a_partition_read_whole_picks_what_dynamodb_would_answer(
    sort_keys: list[str], prefix: str, newest_first: bool, limit: int | None
) -> None:
    # DynamoDB answers in sort-key order (UTF-8 bytes, which is code point order).
    ordered = sorted(sort_keys)
    wire = [{"PK": {"S": PK}, "SK": {"S": sk}} for sk in ordered]
    collected = Collected(Table.PAVE, wire)
    query = QueryKey(Table.PAVE, PK, prefix, newest_first, limit)
    matching = [sk for sk in ordered if sk.startswith(prefix)]
    if newest_first:
        matching.reverse()
    picked = [read.wire["SK"]["S"] for read in collected.query(query)]  # type: ignore[union-attr]
    assert picked == matching[:limit]


@given(
    sort_keys=st.lists(st.text(SK_CHARACTERS, max_size=4), max_size=12, unique=True),
    sk=st.text(SK_CHARACTERS, max_size=4),
)
def test_a_point_read_of_a_partition_read_whole_finds_its_item_or_none(
    sort_keys: list[str], sk: str
) -> None:
    wire = [{"PK": {"S": PK}, "SK": {"S": key}} for key in sorted(sort_keys)]
    collected = Collected(Table.PAVE, wire)
    found = collected.point(ItemKey(Table.PAVE, PK, sk))
    if sk in sort_keys:
        assert found is not None
        assert found.wire["SK"]["S"] == sk  # type: ignore[union-attr]
    else:
        assert found is None
    assert collected.point(ItemKey(Table.PAVE, PK, None)) is None
