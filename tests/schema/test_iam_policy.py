"""The README's IAM policy allows every DynamoDB call the gateway makes."""

from __future__ import annotations

from typing import Any

from gateway.clock import FixedClock
from gateway.demo import ADA, BOB, CY, seed_demo
from gateway.examples import DASHBOARD_QUERY, FRONTEND_QUERY, dashboard_variables
from gateway.principal import Principal
from gateway.settings import Settings
from loaders.dynamodb import Dynamo
from loaders.tables import Table, TableNames
from tests.conftest import CallCounter
from tests.schema.conftest import Execute, data_of
from tests.test_readme import iam_policy


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


def _calls_by_table(calls: CallCounter, names: TableNames) -> dict[str, set[str]]:
    """The calls made, as IAM actions on the tables' default (README) names."""
    default_name = {names.name(t): TableNames().name(t) for t in Table}
    used: dict[str, set[str]] = {}
    for operation, params in calls.requests:
        tables: list[Any] = (
            list(params["RequestItems"]) if "RequestItems" in params else [params["TableName"]]
        )
        for table in tables:
            used.setdefault(default_name[table], set()).add(f"dynamodb:{operation}")
    return used
