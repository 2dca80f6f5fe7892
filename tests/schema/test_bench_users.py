"""The bench's realistic users read back the same under both access plans."""

from __future__ import annotations

from typing import Any

import pytest
from strawberry.types import ExecutionResult

from gateway.settings import Settings
from loaders.dynamodb import Dynamo
from schema import access_plan
from schema.context import build_context
from support.every_field import every_field
from support.fixed_clock import FixedClock
from support.seed import RECURRING_PER_MINE, SCORES, seed_users
from tests.conftest import NOW
from tests.schema.conftest import DASHBOARD_USER, data_of


async def test_a_bench_user_reads_the_same_under_both_plans(
    gateway_schema: Any,
    settings: Settings,
    dynamo: Dynamo,
    clock: FixedClock,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert await seed_users(dynamo, ["bench-a", "bench-b"], NOW, settings) == 2 * 124
    query = (
        'query { users(ids: ["bench-a", "bench-b"]) { ...Full '
        "year: savingsMonths(months: 12) { month } all: cashAdvanceScores(limit: 100) "
        f"{{ score }} }} }} fragment Full on User {every_field(gateway_schema._schema, 'User')}"
    )

    async def run(text: str) -> ExecutionResult:
        context = build_context(dynamo=dynamo, principal=DASHBOARD_USER, clock=clock)
        result: ExecutionResult = await gateway_schema.execute(text, context_value=context)
        return result

    monkeypatch.setattr(access_plan, "COLLECTION_UNITS", float("inf"))
    by_prefix = data_of(await run(query))
    monkeypatch.setattr(access_plan, "COLLECTION_UNITS", 0.0)
    # Another document: a compiled operation keeps its decision for its prices.
    by_collection = data_of(await run(f"{query} "))
    assert by_collection == by_prefix
    user = by_prefix["users"][0]
    assert len(user["recurringExpenses"]) == RECURRING_PER_MINE  # the latest mine's only
    assert len(user["year"]) == 12
    assert len(user["all"]) == SCORES
    assert len(user["lastPages"]) == 2  # the 200-hour-old page has expired
    assert user["payday"] is not None
