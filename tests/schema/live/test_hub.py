"""The hub's re-read: the subscription document executed for one user, through the request
machinery, strongly consistent; which changes wake which user."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Any

import pytest

from loaders.backoff import Backoff
from loaders.dynamodb import Dynamo, FinishedCall
from loaders.live.changes import Change
from loaders.tables import Table
from schema.context import Context, build_context
from schema.live import GroupKey, LiveHub, RereadReason, user_of
from schema.principal import Principal
from schema.root import build_schema
from support.fixed_clock import FixedClock
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
        return build_context(dynamo=dynamo, principal=principal, clock=clock, reread=True)

    hub = LiveHub(build_schema(federation=federation), new_context, clock=clock)
    query = "subscription($ids: [ID!]!) { userChanged(ids: $ids) { id lowBalanceAlert } }"
    key = GroupKey(query, None, '{"ids": ["u-7"]}', "dashboard", "u-7")
    payload, expires_at = await hub.execute(key, {"ids": ["u-7"]})
    assert expires_at is None
    assert payload == {"data": {"userChanged": {"id": "u-7", "lowBalanceAlert": "12.50"}}}
    [read] = calls
    assert read.operation == "batch_get_item"
    assert read.params["RequestItems"][dynamo.tables.balance_settings]["ConsistentRead"] is True


class FlakyHub(LiveHub):
    """Re-reads answered by a script: DynamoDB failing a field, then answering."""

    def __init__(self, answers: list[dict[str, Any]], clock: FixedClock) -> None:
        super().__init__(build_schema(), lambda principal: None, clock=clock, debounce=0.01)  # type: ignore[arg-type,return-value]
        self.answers = answers
        self.rereads = 0

    async def execute(
        self, key: GroupKey, variables: dict[str, Any] | None
    ) -> tuple[dict[str, Any], float | None]:
        self.rereads += 1
        return self.answers[min(self.rereads, len(self.answers)) - 1], None


async def test_a_re_read_dynamodb_failed_is_tried_again_until_whole(
    clock: FixedClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("schema.live.schedule.RETRY", Backoff(base=0.05, cap=0.1))
    failed = {
        "data": {"viewerChanged": {"alert": None}},
        "errors": [{"message": "unavailable", "extensions": {"code": "DYNAMODB_UNAVAILABLE"}}],
    }
    whole = {"data": {"viewerChanged": {"alert": {"alertSent": True}}}}
    hub = FlakyHub([failed, failed, whole], clock)
    sent: list[dict[str, Any]] = []

    async def send(payload: dict[str, Any]) -> None:
        sent.append(payload)

    subscriber = hub.subscribe(
        principal=Principal("u-1"),
        query="subscription { viewerChanged { alert { alertSent } } }",
        operation_name=None,
        variables=None,
        user_ids=["u-1"],
        initial=True,
        cost=1,
        send=send,
    )
    for _ in range(200):
        if whole in sent:
            break
        await asyncio.sleep(0.01)
    hub.remove(subscriber)
    assert sent == [failed, whole]
    assert hub.rereads == 3
    assert hub.subscriptions == 0
    await hub.close()


class Reasons:
    """A `LiveObserver` that notes why each re-read was made."""

    def __init__(self) -> None:
        self.rereads: list[RereadReason] = []

    def reread(self, reason: RereadReason) -> None:
        self.rereads.append(reason)

    def event(self) -> None:
        return None


@pytest.mark.parametrize("reason", ["initial", "change", "resync", "clock"])
async def test_each_re_read_is_counted_under_its_reason(reason: RereadReason) -> None:
    # Half a second before midnight: the hub's midnight re-read comes a second after start.
    clock = FixedClock(datetime(2026, 12, 2, 23, 59, 59, 500_000, tzinfo=UTC))
    answer = {"data": {"viewerChanged": {"id": "u-1"}}}
    observer = Reasons()
    hub = LiveHub(
        build_schema(),
        lambda principal: None,  # type: ignore[arg-type,return-value]
        clock=clock,
        observer=observer,
        debounce=0.01,
    )

    async def execute(
        key: GroupKey, variables: dict[str, Any] | None
    ) -> tuple[dict[str, Any], float | None]:
        return answer, None

    hub.execute = execute  # type: ignore[method-assign]

    async def send(payload: dict[str, Any]) -> None:
        return None

    subscriber = hub.subscribe(
        principal=Principal("u-1"),
        query="subscription { viewerChanged { id } }",
        operation_name=None,
        variables=None,
        user_ids=["u-1"],
        initial=reason == "initial",
        cost=1,
        send=send,
    )
    if reason == "change":
        hub.changes([Change(Table.BALANCE_SETTINGS, "u-1"), Change(Table.BALANCE_SETTINGS, "u-2")])
    elif reason == "resync":
        hub.resync("the feed reconnected")
    elif reason == "clock":
        hub.start()
    for _ in range(300):
        if observer.rereads:
            break
        await asyncio.sleep(0.01)
    await asyncio.sleep(0.05)
    hub.remove(subscriber)
    await hub.close()
    assert observer.rereads == [reason]
