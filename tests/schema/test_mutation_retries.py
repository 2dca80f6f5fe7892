"""Mutations are safe to retry: when DynamoDB applied a write but its answer was lost (the
connection closed first), botocore sends it again; the mutation must still answer what a
clean run answers and leave exactly the items a clean run leaves: nothing doubled, nothing
regressed. A write throttled past the retries answers DYNAMODB_UNAVAILABLE."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

import pytest
from strawberry.types import ExecutionResult

from gateway.settings import Settings
from loaders.dynamodb import Dynamo
from loaders.tables import TableNames, create_tables
from schema.context import build_context
from support.faults import FaultProxy, Lose, Throttle, fault_proxy
from support.fixed_clock import FixedClock
from tests.conftest import put_wire_items
from tests.schema.test_mutations import (
    WRITER_SERVICE,
    capture_input,
    detection_input,
    document,
    payday_input,
    savings_input,
    verification_input,
)

if TYPE_CHECKING:
    from types_aiobotocore_dynamodb import DynamoDBClient

WRITE_OPERATIONS = ("PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem", "TransactWriteItems")
#: The capture event of each payday evaluation has 8 random hex digits of its own.
RANDOM_SUFFIX = re.compile(r"#[0-9a-f]{8}$")

MUTATIONS = [
    ("recordPaydayPrediction", payday_input()),
    ("setIncomeVerification", verification_input()),
    ("recordSavingsSnapshot", savings_input()),
    ("markInsightsRefresh", {"userId": "u-1"}),
    ("recordLastPage", {"userId": "u-1", "paveRequestId": "req-4", "page": 3}),
    ("recordIncomeDetectionRun", detection_input()),
    ("recordFloatMeV2Capture", capture_input()),
    ("evaluateBalanceAlert", {"userId": "u-1", "availableBalance": "10", "currentBalance": "12"}),
]


@pytest.fixture
async def proxy(endpoint_url: str) -> AsyncIterator[FaultProxy]:
    async with fault_proxy(endpoint_url) as proxy:
        yield proxy


async def fresh_tables(dynamodb: DynamoDBClient, suffix: str) -> TableNames:
    names = TableNames(**{t.value: n + suffix for t, n in TableNames().all().items()})
    await create_tables(dynamodb, names)
    return names


async def snapshot(dynamodb: DynamoDBClient, names: TableNames) -> dict[str, list[Any]]:
    """Every item of every table, in key order, the random suffix masked."""
    found = {}
    for table, name in names.all().items():
        items = (await dynamodb.scan(TableName=name, ConsistentRead=True))["Items"]
        for item in items:
            if "SK" in item:
                item["SK"] = {"S": RANDOM_SUFFIX.sub("#<random>", item["SK"]["S"])}
        found[table.value] = sorted(items, key=lambda item: repr(sorted(item.items())))
    return found


async def mutate(
    schema: Any,
    dynamo: Dynamo,
    settings: Settings,
    clock: FixedClock,
    mutation: str,
    given: dict[str, Any],
) -> ExecutionResult:
    context = build_context(dynamo=dynamo, principal=WRITER_SERVICE, clock=clock)
    result: ExecutionResult = await schema.execute(
        document(mutation), variable_values={"input": given}, context_value=context
    )
    return result


async def alerts_on(dynamodb: DynamoDBClient, names: TableNames) -> None:
    item = {"user_id": {"S": "u-1"}, "low_balance_alert": {"N": "50"}}
    await put_wire_items(dynamodb, names.balance_settings, [item])


@pytest.mark.parametrize(("mutation", "given"), MUTATIONS, ids=[m for m, _ in MUTATIONS])
async def test_a_write_whose_answer_was_lost_is_retried_to_the_same_result(
    mutation: str,
    given: dict[str, Any],
    gateway_schema: Any,
    dynamodb: DynamoDBClient,
    dynamo: Dynamo,
    settings: Settings,
    tables: TableNames,
    clock: FixedClock,
    proxy: FaultProxy,
    through_proxy: Dynamo,
) -> None:
    # The clean run, on tables of its own.
    clean_tables = await fresh_tables(dynamodb, f"-clean-{id(proxy)}")
    clean_settings = dataclasses.replace(settings, tables=clean_tables)
    await alerts_on(dynamodb, clean_tables)
    clean = await mutate(
        gateway_schema,
        Dynamo(dynamodb, clean_tables),
        clean_settings,
        clock,
        mutation,
        given,
    )
    assert clean.errors is None, clean.errors
    # The run whose every first write is applied but never answered.
    await alerts_on(dynamodb, tables)
    for operation in WRITE_OPERATIONS:
        proxy.inject(operation, Lose(), times=1)
    lost = await mutate(gateway_schema, through_proxy, settings, clock, mutation, given)
    assert lost.errors is None, lost.errors
    assert lost.data == clean.data
    assert sum(proxy.injected.values()) >= 1
    assert await snapshot(dynamodb, tables) == await snapshot(dynamodb, clean_tables)


async def test_a_write_throttled_past_the_retries_is_unavailable_and_writes_nothing(
    gateway_schema: Any,
    dynamodb: DynamoDBClient,
    settings: Settings,
    tables: TableNames,
    clock: FixedClock,
    proxy: FaultProxy,
    through_proxy: Dynamo,
) -> None:
    before = await snapshot(dynamodb, tables)
    proxy.inject("PutItem", Throttle(), times=1000)
    given = {"userId": "u-1", "paveRequestId": "req-4", "page": 3}
    result = await mutate(gateway_schema, through_proxy, settings, clock, "recordLastPage", given)
    assert result.data == {"recordLastPage": None}
    assert [(e.path, (e.extensions or {}).get("code")) for e in result.errors or ()] == [
        (["recordLastPage"], "DYNAMODB_UNAVAILABLE")
    ]
    assert proxy.injected["PutItem"] == 3
    assert await snapshot(dynamodb, tables) == before
