"""The call log counts calls, waits (round trips) and the read capacity DynamoDB reports."""

from __future__ import annotations

import asyncio

import pytest

from loaders.call_log import consumed_capacity_units
from loaders.dynamodb import Dynamo, DynamoDBFailure
from loaders.keys import ItemKey, QueryKey
from loaders.request_scope import RequestScope
from loaders.tables import Table, TableNames
from tests.conftest import NOW

#: The read capacity each implementation reports for the three empty reads below (two
#: BatchGetItem, one Query): its own rounding, not a figure of ours. moto charges 1 a
#: call; dynalite 0.5 an eventually consistent BatchGetItem (as DynamoDB does) and 0 an
#: empty Query.
EMPTY_READS_CAPACITY = {"moto": 3.0, "dynalite": 1.0}


async def test_concurrent_calls_are_one_round_trip_and_chained_calls_two(
    dynamo: Dynamo, backend: str
) -> None:
    scope = RequestScope(NOW)
    log = scope.calls
    bound = dynamo.bound(scope)
    await asyncio.gather(
        bound.batch_get([ItemKey(Table.PAVE, "PAYDAY#u", "PREDICTION")]),
        bound.query(QueryKey(Table.PAVE, "USERS#u"), lambda items: items),
    )
    assert log.round_trips == 1
    # A call sent after an answer came back may depend on it: the next round trip.
    await bound.batch_get([ItemKey(Table.PAVE, "LABEL#u", "PAVE#REFRESH_INSIGHTS")])
    assert log.summary() == {
        "dynamodbCalls": 3,
        "roundTrips": 2,
        "readCapacityUnits": EMPTY_READS_CAPACITY[backend],
    }
    assert [record.depth for record in log.records] == [1, 1, 2]


async def test_a_failed_call_is_counted_with_no_capacity(
    dynamo: Dynamo, tables: TableNames
) -> None:
    scope = RequestScope(NOW)
    broken = Dynamo(dynamo.client, TableNames(pave="no-such-table")).bound(scope)
    with pytest.raises(DynamoDBFailure):
        await broken.query(QueryKey(Table.PAVE, "USERS#u"), lambda items: items)
    assert scope.calls.summary() == {
        "dynamodbCalls": 1,
        "roundTrips": 1,
        "readCapacityUnits": 0.0,
    }
    # The failed call was answered all the same: a call after it is one round trip later.
    with pytest.raises(DynamoDBFailure):
        await broken.query(QueryKey(Table.PAVE, "USERS#u"), lambda items: items)
    assert [record.depth for record in scope.calls.records] == [1, 2]


async def test_calls_of_the_unbound_dynamo_are_not_recorded(dynamo: Dynamo) -> None:
    scope = RequestScope(NOW)
    dynamo.bound(scope)
    await dynamo.batch_get([ItemKey(Table.PAVE, "PAYDAY#u", "PREDICTION")])
    assert scope.calls.calls == 0
    assert dynamo.scope is None


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
