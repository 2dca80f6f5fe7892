"""The IAM policy of docs/security.md allows every DynamoDB call the gateway makes, only those."""

from __future__ import annotations

import asyncio
from typing import Any, cast

import aioboto3
import httpx
from starlette.applications import Starlette
from starlette.routing import Route

from gateway.cli.demo import ADA, BOB, CY, seed_demo
from gateway.cli.examples import DASHBOARD_QUERY, FRONTEND_QUERY, dashboard_variables
from gateway.observability.health import readyz
from gateway.settings import Settings
from gateway.state import Resources
from loaders.dynamodb import Dynamo
from loaders.live.changes import Change, MemoryChangeFeed, ShardPosition
from loaders.live.streams import LeaseCoordinator, StreamsApi
from loaders.lock import LockClient
from loaders.tables import Table, TableNames
from schema.principal import Principal
from support.fixed_clock import FixedClock
from tests.change_recorder import Recorder
from tests.conftest import CallCounter
from tests.gateway.idempotency.keyed_client import keyed_mutation
from tests.schema.conftest import Execute, data_of
from tests.schema.test_mutations import (
    capture_input,
    detection_input,
    payday_input,
    run,
    savings_input,
    verification_input,
)
from tests.test_docs import iam_policy, iam_stream_policy


async def test_the_iam_policy_allows_every_call_the_reads_make(
    execute: Execute,
    dynamo: Dynamo,
    settings: Settings,
    clock: FixedClock,
    dynamodb_calls: CallCounter,
) -> None:
    await seed_demo(dynamo, clock.now(), settings)
    dynamodb_calls.reset()

    data_of(await execute(FRONTEND_QUERY, principal=Principal(sub=ADA)))
    data_of(await execute(DASHBOARD_QUERY, dashboard_variables([ADA, BOB, CY])))

    used = _calls_by_table(dynamodb_calls, settings.tables)
    policy = iam_policy()
    assert used, "the queries made no DynamoDB call"
    for table, actions in used.items():
        assert actions <= policy[table], f"{table} needs {sorted(actions - policy[table])}"


MUTATIONS: list[tuple[str, dict[str, Any]]] = [
    ("recordPaydayPrediction", payday_input()),
    ("setIncomeVerification", verification_input()),
    ("recordSavingsSnapshot", savings_input()),
    # u-1 has a threshold above this balance and no alert yet: SENT, through the lock.
    ("evaluateBalanceAlert", {"userId": "u-1", "availableBalance": "20", "currentBalance": "25"}),
    ("markInsightsRefresh", {"userId": "u-1"}),
    ("recordLastPage", {"userId": "u-1", "paveRequestId": "r-1", "page": 3}),
    ("recordIncomeDetectionRun", detection_input()),
    ("recordFloatMeV2Capture", capture_input()),
]


async def test_the_iam_policy_is_exactly_what_reads_and_mutations_use(
    execute: Execute,
    dynamo: Dynamo,
    settings: Settings,
    clock: FixedClock,
    dynamodb_calls: CallCounter,
) -> None:
    await seed_demo(dynamo, clock.now(), settings)
    await dynamo.put(Table.BALANCE_SETTINGS, {"user_id": "u-1", "low_balance_alert": 100})
    dynamodb_calls.reset()

    data_of(await execute(FRONTEND_QUERY, principal=Principal(sub=ADA)))
    data_of(await execute(DASHBOARD_QUERY, dashboard_variables([ADA, BOB, CY])))
    for mutation, input in MUTATIONS:
        answer = data_of(await run(execute, mutation, input))
        if mutation == "evaluateBalanceAlert":
            assert answer[mutation]["decision"] == "SENT"
    # A keyed mutation: the key's record is read, then written in the mutation's transaction.
    keyed = await keyed_mutation(dynamo, settings, clock, "markInsightsRefresh", {"userId": "u-1"})
    assert keyed.payload["data"]["markInsightsRefresh"]["label"] == "REFRESH_INSIGHTS"
    # The lock's heartbeat (every second while an evaluation runs; these finish sooner).
    locks = LockClient(dynamo)
    lock = await locks.acquire("balance-alert:user_id:u-2")
    await locks.send_heartbeat(lock)
    assert await locks.release(lock)
    # What a load balancer asks before it sends traffic.
    assert await _readyz(dynamo, settings) == 200

    used = _calls_by_table(dynamodb_calls, settings.tables)
    policy = iam_policy()
    for table in policy:
        granted = policy[table]
        assert used.get(table, set()) == granted, (
            f"{table}: the gateway calls {sorted(used.get(table, set()))}, "
            f"docs/security.md grants {sorted(granted)}"
        )


async def _readyz(dynamo: Dynamo, settings: Settings) -> int:
    app = Starlette(routes=[Route("/readyz", readyz)])
    app.state.resources = Resources(dynamo)
    app.state.settings = settings
    app.state.readiness = None
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://gateway") as client:
        return (await client.get("/readyz")).status_code


TRANSACTION_ACTIONS = {
    "Put": "dynamodb:PutItem",
    "Update": "dynamodb:UpdateItem",
    "Delete": "dynamodb:DeleteItem",
    "ConditionCheck": "dynamodb:ConditionCheckItem",
}


def _calls_by_table(calls: CallCounter, names: TableNames) -> dict[str, set[str]]:
    """The calls made, as IAM actions on the tables' default names (the policy's)."""
    default_name = {names.name(t): TableNames().name(t) for t in Table}
    used: dict[str, set[str]] = {}
    for operation, params in calls.requests:
        if operation == "TransactWriteItems":
            # IAM checks a transaction item by item, each as its own action.
            for entry in params["TransactItems"]:
                for kind, body in entry.items():
                    action = TRANSACTION_ACTIONS[kind]
                    used.setdefault(default_name[body["TableName"]], set()).add(action)
            continue
        tables: list[Any] = (
            list(params["RequestItems"]) if "RequestItems" in params else [params["TableName"]]
        )
        for table in tables:
            used.setdefault(default_name[table], set()).add(f"dynamodb:{operation}")
    return used


async def test_the_iam_policy_is_exactly_what_the_stream_readers_use(
    dynamo: Dynamo,
    settings: Settings,
    endpoint_url: str,
    dynamodb_calls: CallCounter,
) -> None:
    """The readers' stream calls are the policy's stream actions, and their lease calls on
    `locks` (and DescribeTable) are within what the policy grants."""
    stream_calls = CallCounter()
    feed = MemoryChangeFeed()
    recorder = Recorder()
    feed.listen(recorder)
    session = aioboto3.Session()
    async with session.client(
        "dynamodbstreams", endpoint_url=endpoint_url, region_name="us-east-1"
    ) as client:
        client.meta.events.register("before-parameter-build.dynamodbstreams", stream_calls)
        reader = LeaseCoordinator(
            dynamo=dynamo,
            api=cast("StreamsApi", client),
            feed=feed,
            lease_seconds=2.0,
            tick_seconds=0.2,
        )
        await reader.start()
        try:
            for _ in range(500):
                if len({p.table for p in recorder.heard if isinstance(p, ShardPosition)}) == 3:
                    break
                await asyncio.sleep(0.02)
            await dynamo.put(Table.BALANCE_SETTINGS, {"user_id": "u-9"})
            for _ in range(500):
                if Change(Table.BALANCE_SETTINGS, "u-9") in recorder.heard:
                    break
                await asyncio.sleep(0.02)
        finally:
            await reader.stop()
    assert Change(Table.BALANCE_SETTINGS, "u-9") in recorder.heard

    default_name = {settings.tables.name(t): TableNames().name(t) for t in Table}
    streams_used: dict[str, set[str]] = {}
    for operation, params in stream_calls.requests:
        if "StreamArn" in params:
            table = params["StreamArn"].split(":table/")[1].split("/stream/")[0]
            streams_used.setdefault(default_name[table], set()).add(f"dynamodb:{operation}")
    # GetRecords names no stream, only an iterator got on one: it is on every stream read.
    assert stream_calls.calls["GetRecords"] > 0
    for actions in streams_used.values():
        if "dynamodb:GetShardIterator" in actions:
            actions.add("dynamodb:GetRecords")
    assert streams_used == iam_stream_policy()
    # The test's own write (the Insight Service's, in production) is not the readers'.
    dynamodb_calls.requests = [
        (operation, params)
        for operation, params in dynamodb_calls.requests
        if params.get("TableName") != settings.tables.balance_settings or operation != "PutItem"
    ]
    used = _calls_by_table(dynamodb_calls, settings.tables)
    policy = iam_policy()
    for table, actions in used.items():
        assert actions <= policy[table], f"{table} needs {sorted(actions - policy[table])}"
    assert "dynamodb:UpdateItem" in used["locks"]
