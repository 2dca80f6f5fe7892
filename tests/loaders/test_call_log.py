"""The call log counts calls, waits (round trips) and the read capacity DynamoDB reports."""

from __future__ import annotations

import asyncio

import pytest

from loaders.call_log import CallLog, consumed_capacity_units, current_call_log, recording
from loaders.dynamodb import Dynamo, DynamoDBFailure
from loaders.keys import ItemKey, QueryKey
from loaders.tables import Table, TableNames

#: The read capacity each implementation reports for the three empty reads below (two
#: BatchGetItem, one Query): its own rounding, not a figure of ours. moto charges 1 a
#: call; dynalite 0.5 an eventually consistent BatchGetItem (as DynamoDB does) and 0 an
#: empty Query.
EMPTY_READS_CAPACITY = {"moto": 3.0, "dynalite": 1.0}


async def test_concurrent_calls_are_one_round_trip_and_chained_calls_two(
    dynamo: Dynamo, backend: str
) -> None:
    log = CallLog()
    with recording(log):
        await asyncio.gather(
            dynamo.batch_get([ItemKey(Table.PAVE, "PAYDAY#u", "PREDICTION")]),
            dynamo.query(QueryKey(Table.PAVE, "USERS#u"), lambda item: True),
        )
        assert log.round_trips == 1
        # A call sent after an answer came back may depend on it: the next round trip.
        await dynamo.batch_get([ItemKey(Table.PAVE, "LABEL#u", "PAVE#REFRESH_INSIGHTS")])
    assert log.summary() == {
        "dynamodbCalls": 3,
        "roundTrips": 2,
        "readCapacityUnits": EMPTY_READS_CAPACITY[backend],
    }
    assert [record.depth for record in log.records] == [1, 1, 2]
    assert current_call_log() is None


async def test_a_failed_call_is_counted_with_no_capacity(
    dynamo: Dynamo, tables: TableNames
) -> None:
    log = CallLog()
    broken = Dynamo(dynamo.client, TableNames(pave="no-such-table"))
    with recording(log), pytest.raises(DynamoDBFailure):
        await broken.query(QueryKey(Table.PAVE, "USERS#u"), lambda item: True)
    assert log.summary() == {"dynamodbCalls": 1, "roundTrips": 1, "readCapacityUnits": 0.0}
    assert log.records[0].ended is not None


async def test_calls_outside_a_request_are_not_recorded(dynamo: Dynamo) -> None:
    log = CallLog()
    with recording(log):
        pass
    await dynamo.batch_get([ItemKey(Table.PAVE, "PAYDAY#u", "PREDICTION")])
    assert log.calls == 0


@pytest.mark.parametrize(
    ("response", "units"),
    [
        ({}, 0.0),
        ({"ConsumedCapacity": {"TableName": "t", "CapacityUnits": 2.5}}, 2.5),
        (
            {
                "ConsumedCapacity": [
                    {"TableName": "a", "CapacityUnits": 1.5},
                    {"TableName": "b", "CapacityUnits": 0.5},
                ]
            },
            2.0,
        ),
    ],
)
def test_consumed_capacity_of_single_and_batch_responses(
    response: dict[str, object], units: float
) -> None:
    assert consumed_capacity_units(response) == units
