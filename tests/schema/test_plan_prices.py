"""The access plan's choice follows its prices: read units at the read unit's price plus the
estimated CPU at the vCPU's. Each price alone at zero leaves the other to decide; the
defaults' choice for the frontend and a full User is the one docs/performance.md states."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from strawberry.types import ExecutionResult

from gateway.cli.examples import FRONTEND_QUERY
from loaders.dynamodb import Dynamo
from schema import access_plan
from schema.context import build_context
from schema.plan_prices import PRICES, READ_UNIT_PRICE, VCPU_HOUR_PRICE, PlanCost, Prices
from schema.prepared import PreparedOperations
from schema.root import build_schema
from support.every_field import every_field
from support.fixed_clock import FixedClock
from tests.conftest import CallCounter
from tests.schema.conftest import DASHBOARD_USER, data_of

USERS = '["u1", "u2"]'
#: The frontend query's User selection, for two users.
FRONTEND = FRONTEND_QUERY.replace("viewer", f"users(ids: {USERS})")
#: A small selection: two points and the last pages (1.5 units by prefixes, 5 items).
SMALL = (
    f"{{ users(ids: {USERS}) {{ "
    f"alert {{ alertSent }} income {{ amount }} lastPages {{ page }} }} }}"
)

CPU_ONLY = Prices(read_unit=0.0)
UNITS_ONLY = Prices(vcpu_hour=0.0)

Run = Callable[[Prices, str], Awaitable[CallCounter]]


@pytest.fixture(scope="module")
def schemas() -> dict[Prices, Any]:
    """One schema per set of prices, built once for the module."""
    return {
        prices: build_schema(prepared=PreparedOperations(prices=prices))
        for prices in (PRICES, CPU_ONLY, UNITS_ONLY)
    }


@pytest.fixture
def run(
    schemas: dict[Prices, Any], dynamo: Dynamo, clock: FixedClock, dynamodb_calls: CallCounter
) -> Run:
    """Execute `query` under `prices`; the DynamoDB calls it sent."""

    async def run_query(prices: Prices, query: str) -> CallCounter:
        dynamodb_calls.reset()
        context = build_context(dynamo=dynamo, principal=DASHBOARD_USER, clock=clock)
        result: ExecutionResult = await schemas[prices].execute(query, context_value=context)
        data_of(result)
        return dynamodb_calls

    return run_query


def full_user() -> str:
    return f"{{ users(ids: {USERS}) {every_field(build_schema()._schema, 'User')} }}"


def partition_queries(calls: CallCounter) -> list[str]:
    """The Queries sent, each as its partition key's kind and its sort-key prefix (`USERS#`:
    a user's partition read whole)."""
    return sorted(
        params["ExpressionAttributeValues"][":pk"]["S"].split("#")[0]
        + "#"
        + params["ExpressionAttributeValues"].get(":prefix", {}).get("S", "")
        for name, params in calls.requests
        if name == "Query"
    )


async def test_the_read_units_alone_decide_when_the_cpu_is_free(run: Run) -> None:
    # The frontend: 4.0 units field by field against 3.5 for the partition whole.
    calls = await run(UNITS_ONLY, FRONTEND)
    assert partition_queries(calls) == ["MINE#TIME#"] * 2 + ["USERS#"] * 2
    assert calls.calls == {"Query": 4, "BatchGetItem": 1}
    # 1.5 units field by field: the prefix plan, its points in the one BatchGetItem.
    calls = await run(UNITS_ONLY, SMALL)
    assert partition_queries(calls) == ["USERS#LAST_PAGE#REQUEST_ID#"] * 2
    assert calls.calls == {"Query": 2, "BatchGetItem": 1}


async def test_the_cpu_alone_decides_when_read_units_are_free(run: Run) -> None:
    # The frontend: the same calls either way, but 52 items read against 112: by prefix.
    calls = await run(CPU_ONLY, FRONTEND)
    assert partition_queries(calls) == ["MINE#TIME#"] * 2 + ["USERS#RECURRING#"] * 2
    assert calls.calls == {"Query": 4, "BatchGetItem": 1}
    calls = await run(CPU_ONLY, SMALL)
    assert partition_queries(calls) == ["USERS#LAST_PAGE#REQUEST_ID#"] * 2
    # A full User: 4.06 calls a user by prefix against one, but 29 items fewer: about even
    # (the bench measures them so), and the plan follows its estimate either way.
    every = [(name, None) for name in access_plan.USER_READS]
    whole = access_plan.reads_partition_whole(every, {}, prices=CPU_ONLY)
    calls = await run(CPU_ONLY, full_user())
    assert partition_queries(calls).count("USERS#") == (2 if whole else 0)
    # Beside the latest mine and the detection runs: the partition, or its four prefixes.
    assert calls.calls == {"Query": 2 * (3 if whole else 6), "BatchGetItem": 1}


async def test_the_defaults_read_the_frontend_and_a_full_user_whole(run: Run) -> None:
    """At today's prices a read unit costs as much as ~11 ms of CPU: the units decide."""
    calls = await run(PRICES, FRONTEND)
    assert partition_queries(calls) == ["MINE#TIME#"] * 2 + ["USERS#"] * 2
    calls = await run(PRICES, full_user())
    assert partition_queries(calls).count("USERS#") == 2
    assert calls.calls == {"Query": 2 * 3, "BatchGetItem": 1}
    calls = await run(PRICES, SMALL)
    assert partition_queries(calls) == ["USERS#LAST_PAGE#REQUEST_ID#"] * 2


def test_the_defaults_are_the_documented_prices() -> None:
    assert (READ_UNIT_PRICE, VCPU_HOUR_PRICE) == (0.125, 0.04048)
    # A read unit at $0.125 a million is worth ~11 ms of a vCPU at $0.04048 an hour.
    cpu_ms = PRICES.vcpu_hour / 3600 / 1000
    assert 11.0 < PRICES.dollars(PlanCost(units=1.0)) / cpu_ms < 11.2


@pytest.mark.parametrize(
    ("prices", "message"),
    [
        ({"read_unit": -0.1}, "read_unit price must be a finite number ≥ 0"),
        ({"vcpu_hour": float("nan")}, "vcpu_hour price must be a finite number ≥ 0"),
        ({"read_unit": 0.0, "vcpu_hour": 0.0}, "at least one"),
    ],
)
def test_prices_are_checked(prices: dict[str, float], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Prices(**prices)


def test_the_estimate_follows_the_declarations() -> None:
    fields = [("recurringExpenses", None), ("alert", None), ("savingsMonths", None)]
    prefix = access_plan.prefix_plan_cost(fields, {})
    # recurring: a Query of 48 items; the alert and 3 months: 4 keys of a BatchGetItem.
    assert (prefix.units, prefix.items_read, prefix.items_decoded) == (4.0, 52, 52)
    assert prefix.calls == pytest.approx(1.04)
    whole = access_plan.collection_cost(prefix)
    assert whole == PlanCost(units=3.5, calls=1.0, items_read=112, items_decoded=52)
    assert whole.cpu_seconds > prefix.cpu_seconds
    assert access_plan.reads_partition_whole(fields, {}, prices=UNITS_ONLY)
    assert not access_plan.reads_partition_whole(fields, {}, prices=CPU_ONLY)
    assert access_plan.reads_partition_whole(fields, {})
    assert not access_plan.reads_partition_whole([("id", None)], {}, prices=CPU_ONLY)
