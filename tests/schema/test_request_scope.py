"""Each request's scope is its own: two requests executed together, in the same task (so
sharing every context variable there is), keep their own deadline and call log."""

from __future__ import annotations

import asyncio
from typing import Any

from loaders.dynamodb import Dynamo
from schema.context import build_context
from support.fixed_clock import FixedClock
from tests.schema.conftest import DASHBOARD_USER, data_of

QUERY = "query($id: ID!) { user(id: $id) { id payday { nextDate } alert { alertSent } } }"


async def test_two_requests_in_one_task_keep_their_own_deadline_and_calls(
    gateway_schema: Any, dynamo: Dynamo, clock: FixedClock
) -> None:
    late = build_context(dynamo=dynamo, principal=DASHBOARD_USER, clock=clock, deadline_seconds=0.0)
    on_time = build_context(
        dynamo=dynamo, principal=DASHBOARD_USER, clock=clock, deadline_seconds=30.0
    )
    late_result, on_time_result = await asyncio.gather(
        gateway_schema.execute(QUERY, variable_values={"id": "u-1"}, context_value=late),
        gateway_schema.execute(QUERY, variable_values={"id": "u-2"}, context_value=on_time),
    )
    # The late request's reads were cut short by its own deadline only.
    assert late_result.errors
    assert {error.extensions["code"] for error in late_result.errors} == {"DYNAMODB_UNAVAILABLE"}
    assert data_of(on_time_result) == {"user": {"id": "u-2", "payday": None, "alert": None}}
    # Each request's calls are in its own log, and only there.
    assert late.calls.calls >= 1
    assert on_time.calls.calls >= 1
    assert not set(map(id, late.calls.records)) & set(map(id, on_time.calls.records))
    assert all(record.capacity_units == 0.0 for record in late.calls.records)
    assert late.dynamo.scope is late.scope
    assert on_time.dynamo.scope is on_time.scope
    assert dynamo.scope is None


async def test_a_context_is_made_a_re_read_at_construction(
    dynamo: Dynamo, clock: FixedClock
) -> None:
    reread = build_context(dynamo=dynamo, principal=DASHBOARD_USER, clock=clock, reread=True)
    plain = build_context(dynamo=dynamo, principal=DASHBOARD_USER, clock=clock)
    assert reread.reread
    assert not plain.reread
    # A re-read must see the write that woke it: its reads are strongly consistent.
    assert reread.reads.points._consistent
    assert not plain.reads.points._consistent
