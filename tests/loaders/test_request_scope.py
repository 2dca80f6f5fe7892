"""The request scope is passed, not ambient: each request's deadline and call log reach
its DynamoDB calls through its loaders and its bound `Dynamo`, never through the task."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

import pytest

from loaders.dynamodb import Dynamo
from loaders.errors import DynamoDBUnavailable
from loaders.keys import ItemKey, QueryKey
from loaders.point_reads import PointReadLoader
from loaders.queries import QueryLoader
from loaders.request_scope import RequestScope
from loaders.tables import Table, TableNames
from tests.conftest import NOW

if TYPE_CHECKING:
    from types_aiobotocore_dynamodb import DynamoDBClient


def payday(user_id: str) -> ItemKey:
    return ItemKey(Table.PAVE, f"PAYDAY#{user_id}", "PREDICTION")


async def test_two_requests_in_one_task_each_keep_their_own_deadline(
    dynamodb: DynamoDBClient, tables: TableNames
) -> None:
    """Two requests run concurrently in the same task (so sharing every context variable):
    the one whose deadline has passed fails, the other one reads."""
    dynamo = Dynamo(dynamodb, tables)
    late = RequestScope.starting(NOW, seconds=0.0)
    on_time = RequestScope.starting(NOW, seconds=30.0)
    assert late.deadline is not None
    assert on_time.deadline is not None
    assert late.deadline < on_time.deadline
    late_reads = PointReadLoader(dynamo.bound(late), NOW)
    on_time_reads = PointReadLoader(dynamo.bound(on_time), NOW)
    late_answer, on_time_answer = await asyncio.gather(
        late_reads.load(payday("u-1")),
        on_time_reads.load(payday("u-2")),
        return_exceptions=True,
    )
    assert isinstance(late_answer, DynamoDBUnavailable)
    assert isinstance(late_answer.__cause__, TimeoutError)
    assert on_time_answer is None  # read, and absent
    # Each request's one call is in its own log: the late one cut short, with no answer.
    [late_call] = late.calls.records
    [on_time_call] = on_time.calls.records
    assert late_call.capacity_units == 0.0
    assert on_time_call.capacity_units > 0.0


async def test_a_loader_logs_its_calls_to_its_own_scope_only(
    dynamodb: DynamoDBClient, tables: TableNames
) -> None:
    dynamo = Dynamo(dynamodb, tables)
    first, second = RequestScope(NOW), RequestScope(NOW)
    points = PointReadLoader(dynamo.bound(first), NOW)
    queries = QueryLoader(dynamo.bound(second), NOW)
    await asyncio.gather(
        points.load(payday("u-1")),
        points.load(ItemKey(Table.BALANCE_SETTINGS, "u-1", None)),
        queries.load(QueryKey(Table.PAVE, "USERS#u-1")),
    )
    assert [record.operation for record in first.calls.records] == ["batch_get_item"]
    assert [record.operation for record in second.calls.records] == ["query"]
    # The process's own door records nowhere, and binding it changed nothing of it.
    assert dynamo.scope is None
    await dynamo.batch_get([payday("u-3")])
    assert first.calls.calls == 1
    assert second.calls.calls == 1


async def test_a_bound_dynamo_shares_the_process_door(
    dynamodb: DynamoDBClient, tables: TableNames
) -> None:
    dynamo = Dynamo(dynamodb, tables, max_concurrency=4)
    seen: list[str] = []
    dynamo.observers.append(lambda call: seen.append(call.operation))
    bound = dynamo.bound(RequestScope(NOW))
    assert bound.client is dynamo.client
    assert bound._slots is dynamo._slots
    await bound.batch_get([payday("u-1")])
    assert seen == ["batch_get_item"]


@pytest.mark.parametrize("seconds", [None, 5.0])
async def test_a_scope_starts_its_deadline_on_the_loop_clock(seconds: float | None) -> None:
    before = asyncio.get_running_loop().time()
    scope = RequestScope.starting(NOW, seconds=seconds)
    if seconds is None:
        assert scope.deadline is None
    else:
        assert scope.deadline is not None
        assert before + seconds <= scope.deadline <= asyncio.get_running_loop().time() + seconds
    assert scope.now == NOW
    assert scope.calls.calls == 0
