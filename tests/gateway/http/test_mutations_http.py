"""The mutations over HTTP: the writer role from the bearer token, and the process's one lock
client shared by concurrent requests."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

import httpx

from gateway.app import create_app
from gateway.settings import Settings
from gateway.state import Resources
from loaders.dynamodb import Dynamo
from loaders.lock import LockClient
from loaders.tables import TableNames
from support.fixed_clock import FixedClock
from support.http_client import SECRET, tokens
from tests.conftest import CallCounter, put_wire_items
from tests.schema.test_mutations import document

if TYPE_CHECKING:
    from types_aiobotocore_dynamodb import DynamoDBClient

EVALUATE = {"userId": "u-1", "availableBalance": "10", "currentBalance": "20"}


@asynccontextmanager
async def gateway(
    settings: Settings, dynamo: Dynamo, clock: FixedClock
) -> AsyncIterator[httpx.AsyncClient]:
    """The app as its lifespan leaves it: the suite's Dynamo and one process lock client."""
    app = create_app(dataclasses.replace(settings, auth_hs256_secret=SECRET), clock=clock)
    app.state.resources = Resources(dynamo, locks=LockClient(dynamo))
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://gateway") as client:
        yield client


async def post(
    client: httpx.AsyncClient, clock: FixedClock, kind: str, mutation: str, input: Any
) -> httpx.Response:
    return await client.post(
        "/graphql",
        json={"query": document(mutation), "variables": {"input": input}},
        headers={"Authorization": f"Bearer {tokens(clock)[kind]()}"},
    )


async def test_a_writer_token_may_write(
    settings: Settings, dynamo: Dynamo, clock: FixedClock
) -> None:
    async with gateway(settings, dynamo, clock) as client:
        response = await post(
            client,
            clock,
            "writer",
            "recordLastPage",
            {"userId": "u-1", "paveRequestId": "req-4", "page": 2},
        )

    assert response.status_code == 200
    assert response.json() == {
        "data": {
            "recordLastPage": {
                "paveRequestId": "req-4",
                "page": 2,
                "updatedDate": "2026-12-02T11:31:28Z",
            }
        }
    }


async def test_readers_may_not_write(
    settings: Settings, dynamo: Dynamo, clock: FixedClock, dynamodb_calls: CallCounter
) -> None:
    async with gateway(settings, dynamo, clock) as client:
        for kind in ("end user", "dashboard"):
            response = await post(client, clock, kind, "markInsightsRefresh", {"userId": "u-1"})
            body = response.json()
            assert body["data"] == {"markInsightsRefresh": None}
            assert [error["extensions"]["code"] for error in body["errors"]] == ["FORBIDDEN"]

    assert dynamodb_calls.total == 0


async def test_concurrent_requests_share_the_lock_one_sent_one_locked(
    settings: Settings,
    dynamo: Dynamo,
    clock: FixedClock,
    dynamodb: DynamoDBClient,
    tables: TableNames,
) -> None:
    await put_wire_items(
        dynamodb,
        tables.balance_settings,
        [{"user_id": {"S": "u-1"}, "low_balance_alert": {"N": "50"}}],
    )
    other_answered = asyncio.Event()

    async def hold_the_winner(params: dict[str, Any], **_: Any) -> None:
        if params.get("TableName") == tables.balance_settings:
            await asyncio.wait_for(other_answered.wait(), timeout=10)

    events: Any = dynamodb.meta.events
    events.register("before-parameter-build.dynamodb.GetItem", hold_the_winner)
    try:
        async with gateway(settings, dynamo, clock) as client:
            requests = [
                asyncio.create_task(post(client, clock, "writer", "evaluateBalanceAlert", EVALUATE))
                for _ in range(2)
            ]
            done, pending = await asyncio.wait(
                requests, timeout=10, return_when=asyncio.FIRST_COMPLETED
            )
            [first] = done
            other_answered.set()
            [second] = await asyncio.gather(*pending)
    finally:
        events.unregister("before-parameter-build.dynamodb.GetItem", hold_the_winner)

    decisions = [
        response.json()["data"]["evaluateBalanceAlert"]["decision"]
        for response in (first.result(), second)
    ]
    assert decisions == ["LOCKED", "SENT"]
    locks = await dynamodb.scan(TableName=tables.locks, ConsistentRead=True)
    assert locks["Items"] == []
