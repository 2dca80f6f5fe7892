"""The IAM policy of docs/security.md allows every DynamoDB call the gateway makes, only those."""

from __future__ import annotations

from typing import Any

import httpx
from starlette.applications import Starlette
from starlette.routing import Route

from gateway.cli.demo import ADA, BOB, CY, seed_demo
from gateway.cli.examples import DASHBOARD_QUERY, FRONTEND_QUERY, dashboard_variables
from gateway.observability.health import readyz
from gateway.settings import Settings
from loaders.dynamodb import Dynamo
from loaders.lock import LockClient
from loaders.tables import Table, TableNames
from schema.clock import FixedClock
from schema.principal import Principal
from tests.conftest import CallCounter
from tests.schema.conftest import Execute, data_of
from tests.schema.test_mutations import (
    capture_input,
    detection_input,
    payday_input,
    run,
    savings_input,
    verification_input,
)
from tests.test_docs import iam_policy


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
    # The lock's heartbeat (every second while an evaluation runs; these finish sooner).
    locks = LockClient(dynamo)
    lock = await locks.acquire("balance-alert:user_id:u-2", fail_if_locked=True)
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
    app.state.dynamo = dynamo
    app.state.settings = settings
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://gateway") as client:
        return (await client.get("/readyz")).status_code


def _calls_by_table(calls: CallCounter, names: TableNames) -> dict[str, set[str]]:
    """The calls made, as IAM actions on the tables' default names (the policy's)."""
    default_name = {names.name(t): TableNames().name(t) for t in Table}
    used: dict[str, set[str]] = {}
    for operation, params in calls.requests:
        tables: list[Any] = (
            list(params["RequestItems"]) if "RequestItems" in params else [params["TableName"]]
        )
        for table in tables:
            used.setdefault(default_name[table], set()).add(f"dynamodb:{operation}")
    return used
