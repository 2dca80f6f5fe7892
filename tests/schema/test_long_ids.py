"""Ids past DynamoDB's key limits, as the probe sent them: over dynalite, which enforces the
2,048-byte partition key (moto does not). A long id is BAD_USER_INPUT at its own place,
checked before any read; the other ids of the request are read and answered."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from typing import TYPE_CHECKING

import pytest

from loaders.dynamodb import Dynamo
from loaders.dynamodb_errors import KeysRefused
from loaders.keys import ItemKey
from loaders.point_reads import PointReadLoader
from loaders.tables import Table, TableNames, create_tables
from support.dynalite_server import DynaliteServer
from support.fixed_clock import FixedClock
from tests.conftest import CallCounter, open_test_client, put_wire_items, unique_table_names
from tests.schema.conftest import Execute

if TYPE_CHECKING:
    from types_aiobotocore_dynamodb import DynamoDBClient

LONG_ID = "x" * 2100
REAL = [f"u-{n}" for n in range(99)]


@pytest.fixture(scope="module")
def dynalite() -> Iterator[DynaliteServer]:
    server = DynaliteServer()
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def endpoint_url(dynalite: DynaliteServer) -> str:
    return dynalite.endpoint_url


@pytest.fixture(scope="module")
async def dynamodb(endpoint_url: str) -> AsyncIterator[DynamoDBClient]:
    async with open_test_client(endpoint_url) as client:
        yield client


@pytest.fixture
async def tables(dynamodb: DynamoDBClient) -> TableNames:
    names = unique_table_names()
    await create_tables(dynamodb, names, ttl=False, streams=False)
    return names


async def _thresholds(dynamodb: DynamoDBClient, tables: TableNames) -> None:
    items = [{"user_id": {"S": user}, "low_balance_alert": {"N": "25"}} for user in REAL]
    await put_wire_items(dynamodb, tables.balance_settings, items)


async def test_a_2100_character_id_among_99_real_ones_leaves_the_99_answered(
    execute: Execute, dynamodb: DynamoDBClient, tables: TableNames, dynamodb_calls: CallCounter
) -> None:
    await _thresholds(dynamodb, tables)
    dynamodb_calls.reset()
    ids = [*REAL[:50], LONG_ID, *REAL[50:]]
    result = await execute(
        "query($ids: [ID!]!) { users(ids: $ids) { id lowBalanceAlert } }", {"ids": ids}
    )
    assert result.data is not None
    users = result.data["users"]
    assert users[50] is None
    answered = users[:50] + users[51:]
    assert answered == [{"id": user, "lowBalanceAlert": "25.00"} for user in REAL]
    assert result.errors is not None
    assert [(error.path, error.extensions) for error in result.errors] == [
        (["users", 50], {"code": "BAD_USER_INPUT", "field": "ids"})
    ]
    # Checked before the read: the long id never reached DynamoDB.
    sent = [
        key["user_id"]["S"]
        for name, params in dynamodb_calls.requests
        if name == "BatchGetItem"
        for table in params["RequestItems"].values()
        for key in table["Keys"]
    ]
    assert sorted(sent) == sorted(REAL)


@pytest.mark.parametrize(
    "query",
    [
        '{ user(id: "ID") { id } }',
        '{ users(ids: ["u-1", "ID"]) { id } }',
    ],
)
async def test_a_long_id_is_bad_user_input_at_its_place(execute: Execute, query: str) -> None:
    result = await execute(query.replace("ID", LONG_ID))
    assert result.errors is not None
    assert [error.extensions for error in result.errors] == [
        {"code": "BAD_USER_INPUT", "field": "ids" if "users" in query else "id"}
    ]
    assert "must be at most 256 characters" in result.errors[0].message


async def test_a_key_over_dynamodbs_limits_fails_alone_in_the_loader(
    dynamodb: DynamoDBClient, tables: TableNames, clock: FixedClock, dynamodb_calls: CallCounter
) -> None:
    """A key past the limits that no argument check caught (the loader's own guard): it
    fails alone with BAD_USER_INPUT; the 99 keys beside it are read in their BatchGetItem."""
    await _thresholds(dynamodb, tables)
    dynamodb_calls.reset()
    loader = PointReadLoader(Dynamo(dynamodb, tables), clock.now())
    keys = [ItemKey(Table.BALANCE_SETTINGS, user) for user in [*REAL, LONG_ID]]
    answers = await asyncio.gather(*(loader.load(key) for key in keys), return_exceptions=True)
    assert all(isinstance(answer, dict) for answer in answers[:99])
    refused = answers[99]
    assert isinstance(refused, KeysRefused)
    assert refused.graphql_extensions() == {"code": "BAD_USER_INPUT"}
    assert "ValidationException" not in str(refused)
    assert dynamodb_calls.calls["BatchGetItem"] == 1
