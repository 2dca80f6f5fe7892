"""Keyed mutations under faults (SPEC section 9): an answer lost after the commit, a commit
cancelled by another writer's condition; each leaves exactly one effect."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from gateway.settings import Settings
from loaders.dynamodb import Dynamo
from loaders.tables import TableNames
from support.faults import ApplyThenFail, FaultProxy, Lose
from support.fixed_clock import FixedClock
from tests.gateway.idempotency.keyed_client import effects, gateway, records, send
from tests.schema.test_mutations import payday_input

if TYPE_CHECKING:
    from types_aiobotocore_dynamodb import DynamoDBClient


@pytest.mark.parametrize("fault", [ApplyThenFail(), Lose()], ids=["500 after commit", "lost"])
async def test_a_commit_whose_answer_is_lost_has_one_effect_and_the_first_answer(
    settings: Settings,
    dynamo: Dynamo,
    through_proxy: Dynamo,
    proxy: FaultProxy,
    dynamodb: DynamoDBClient,
    tables: TableNames,
    clock: FixedClock,
    fault: ApplyThenFail | Lose,
) -> None:
    proxy.inject("TransactWriteItems", fault, times=3)
    async with gateway(settings, through_proxy, clock) as faulty:
        first = await send(faulty, clock, "recordPaydayPrediction", payday_input())
    # The writer heard an answer (botocore's retries found the commit) or gave up; either
    # way its retry, on another replica, answers the first answer and writes nothing more.
    async with gateway(settings, dynamo, clock) as another:
        retried = await send(another, clock, "recordPaydayPrediction", payday_input())

    assert proxy.injected["TransactWriteItems"] >= 1
    written = await effects(dynamodb, tables)
    assert len(written["datacapture"]) == 1
    assert len(written["pave"]) == 1
    assert len(await records(dynamodb, tables)) == 1
    assert retried.status_code == 200
    assert retried.headers["Idempotency-Replayed"] == "true"
    if first.status_code == 200 and "errors" not in first.json():
        assert retried.json() == first.json()


async def test_a_commit_cancelled_by_another_writers_condition_runs_again_and_answers_the_table(
    settings: Settings,
    dynamo: Dynamo,
    dynamodb: DynamoDBClient,
    tables: TableNames,
    clock: FixedClock,
) -> None:
    """A keyed recordLastPage stages its put without reading; the page stored meanwhile is
    higher, so its condition cancels the transaction: the run again reads the stored row and
    answers it, recording that answer alone."""
    input = {"userId": "u-1", "paveRequestId": "req-4", "page": 3}
    async with gateway(settings, dynamo, clock) as client:
        await send(client, clock, "recordLastPage", {**input, "page": 7}, key="another")
        answer = await send(client, clock, "recordLastPage", input)
        again = await send(client, clock, "recordLastPage", input)

    assert answer.json()["data"]["recordLastPage"]["page"] == 7
    assert again.content == answer.content
    assert [item["page"] for item in (await effects(dynamodb, tables))["pave"]] == [7]
    assert len(await records(dynamodb, tables)) == 2
