"""A warm cache's rows keep the part of the answer their completion wrote, as its JSON: the
next request of the same compiled operation gets it back for the row instead of writing it
again, with the same bytes as graphql-core's; a selection that writes a field twice keeps
none, nor does an uncached request. (What the kept parts take:
tests/loaders/cache/test_sizes.py.)"""

from __future__ import annotations

from typing import Any

import orjson
from strawberry.types import ExecutionResult
from types_aiobotocore_dynamodb import DynamoDBClient

from bench.completion import PRINCIPAL, Measured, check_same
from gateway.settings import Settings
from loaders.dynamodb import Dynamo
from loaders.tables import create_tables
from schema.context import build_context
from support.seed import seed_users
from tests.conftest import NOW, unique_table_names

USERS = [f"parts-{n}" for n in range(3)]
TWICE = """query($ids: [ID!]!) { users(ids: $ids) {
  id recurringExpenses { merchantName again: merchantName amount }
} }"""


async def seeded(dynamodb: DynamoDBClient, users: list[str] = USERS) -> Measured:
    """Both schemas over one cache, with `users` seeded (the cache still empty)."""
    tables = unique_table_names()
    await create_tables(dynamodb, tables)
    dynamo = Dynamo(dynamodb, tables)
    await seed_users(dynamo, users, NOW, Settings(tables=tables))
    measured = Measured(dynamo, NOW)
    measured.variables = {"ids": users}
    return measured


async def warm(dynamodb: DynamoDBClient) -> Measured:
    measured = await seeded(dynamodb)
    await measured.fill()
    return measured


def first_expense(result: ExecutionResult) -> Any:
    assert result.errors is None
    assert result.data is not None
    return result.data["users"][0]["recurringExpenses"][0]


async def test_a_cached_rows_part_is_written_once_and_given_back(
    dynamodb: DynamoDBClient,
) -> None:
    measured = await warm(dynamodb)
    first, second = measured.run(measured.gateway), measured.run(measured.gateway)
    check_same(second, measured.run(measured.graphql_core))
    assert orjson.dumps(first.data) == orjson.dumps(second.data)
    assert first_expense(first) is first_expense(second)
    assert isinstance(first_expense(second), orjson.Fragment)  # kept as its JSON
    # Every user's detection runs, down to their transactions, are given back whole.
    assert first.data is not None
    assert second.data is not None
    for one, two in zip(first.data["users"], second.data["users"], strict=True):
        assert one["incomeDetectionRuns"]
        for run_one, run_two in zip(
            one["incomeDetectionRuns"], two["incomeDetectionRuns"], strict=True
        ):
            assert run_one is run_two


async def test_a_field_written_twice_keeps_no_part(dynamodb: DynamoDBClient) -> None:
    measured = await warm(dynamodb)
    measured.query = TWICE
    first, second = measured.run(measured.gateway), measured.run(measured.gateway)
    check_same(second, measured.run(measured.graphql_core))
    assert first_expense(first) == first_expense(second)
    assert set(first_expense(first)) == {"merchantName", "again", "amount"}
    assert first_expense(first) is not first_expense(second)


async def test_an_uncached_requests_rows_keep_no_part(dynamodb: DynamoDBClient) -> None:
    measured = await warm(dynamodb)

    async def uncached() -> ExecutionResult:
        context = build_context(dynamo=measured.dynamo, principal=PRINCIPAL, clock=measured.clock)
        try:
            return await measured.gateway.execute(
                measured.query, variable_values=measured.variables, context_value=context
            )
        finally:
            context.reads.release()

    first, second = await uncached(), await uncached()
    assert first_expense(first) == first_expense(second)
    assert first_expense(first) is not first_expense(second)
