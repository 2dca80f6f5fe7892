"""The hub's re-read: the subscription document executed for one user, through the request
machinery, strongly consistent; which changes wake which user."""

from __future__ import annotations

from typing import Any

import pytest

from loaders.changes import Change
from loaders.dynamodb import Dynamo, FinishedCall
from loaders.tables import Table
from schema.clock import FixedClock
from schema.context import Context, build_context
from schema.live import GroupKey, LiveHub, user_of
from schema.principal import Principal
from schema.root import build_schema
from tests.conftest import put_wire_items
from tests.wire import n, s


@pytest.mark.parametrize(
    ("change", "user"),
    [
        (Change(Table.PAVE, "USERS#u-1"), "u-1"),
        (Change(Table.PAVE, "PAYDAY#u-1"), "u-1"),
        (Change(Table.PAVE, "LABEL#u-1"), "u-1"),
        (Change(Table.PAVE, "MINE#u-1"), "u-1"),
        (Change(Table.INCOME_DETECTION, "INCOME_DETECTION#u-1"), "u-1"),
        (Change(Table.BALANCE_SETTINGS, "u-1"), "u-1"),
        (Change(Table.DATACAPTURE, "USER#u-1"), None),
        (Change(Table.LOCKS, "balance-alert:user_id:u-1"), None),
        (Change(Table.PAVE, "no-separator"), None),
    ],
)
def test_which_user_a_change_wakes(change: Change, user: str | None) -> None:
    assert user_of(change) == user


@pytest.mark.parametrize("federation", [False, True])
async def test_a_re_read_executes_the_document_for_one_user_strongly_consistent(
    dynamo: Dynamo, clock: FixedClock, federation: bool, dynamodb: Any
) -> None:
    await put_wire_items(
        dynamodb,
        dynamo.tables.balance_settings,
        [{"user_id": s("u-7"), "low_balance_alert": n("12.5")}],
    )
    calls: list[FinishedCall] = []
    dynamo.observers.append(calls.append)

    def new_context(principal: Principal) -> Context:
        return build_context(dynamo=dynamo, principal=principal, clock=clock, consistent=True)

    hub = LiveHub(build_schema(federation=federation), new_context, clock=clock)
    query = "subscription($ids: [ID!]!) { userChanged(ids: $ids) { id lowBalanceAlert } }"
    key = GroupKey(query, None, '{"ids": ["u-7"]}', "dashboard", "u-7")
    payload = await hub.execute(key, {"ids": ["u-7"]})
    assert payload == {"data": {"userChanged": {"id": "u-7", "lowBalanceAlert": "12.5"}}}
    [read] = calls
    assert read.operation == "batch_get_item"
    assert read.params["RequestItems"][dynamo.tables.balance_settings]["ConsistentRead"] is True
