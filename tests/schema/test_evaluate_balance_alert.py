"""Section 5: every decision in order, the cooldown's exact boundary, and the lock: one of
two concurrent evaluations proceeds, a Go holder is respected, a failure still releases."""

from __future__ import annotations

import asyncio
import dataclasses
from datetime import timedelta
from decimal import Decimal
from typing import TYPE_CHECKING, Any

import pytest

from loaders.balance_alert import Decision, Evaluation, evaluate_balance_alert
from loaders.cache import WritePublisher
from loaders.codec import format_instant
from loaders.dynamodb import Dynamo, DynamoDBFailure
from loaders.lock import LockClient
from loaders.tables import TableNames
from schema.writes import WriteSession
from tests.conftest import NOW, CallCounter, put_wire_items
from tests.loaders.test_lock import FakeTimer
from tests.schema.conftest import Execute, data_of
from tests.schema.test_mutations import NULL, WRITER_SERVICE, document
from tests.wire import n, s

if TYPE_CHECKING:
    from types_aiobotocore_dynamodb import DynamoDBClient

LOCK_KEY = "balance-alert:user_id:u-1"

#: The mutation input's values (by field name) the direct evaluations take.
BALANCES = {"user_id": "u-1", "available_balance": Decimal("10"), "current_balance": Decimal("20")}


async def evaluate_directly(dynamo: Dynamo, locks: LockClient) -> Evaluation:
    """`BALANCES` evaluated as the mutation runs it: staged, then committed (and the lock
    released) by the operation's write session."""
    session = WriteSession(dynamo, WritePublisher())
    return await session.run(
        "evaluateBalanceAlert",
        lambda writes: evaluate_balance_alert(dynamo, locks, BALANCES, NOW, writes),
    )


async def evaluate(execute: Execute, available: str, current: str = "120") -> Any:
    result = await execute(
        document("evaluateBalanceAlert"),
        {"input": {"userId": "u-1", "availableBalance": available, "currentBalance": current}},
        WRITER_SERVICE,
    )
    return data_of(result)["evaluateBalanceAlert"]


async def set_threshold(
    dynamodb: DynamoDBClient, tables: TableNames, value: dict[str, Any] | None
) -> None:
    item: dict[str, Any] = {"user_id": s("u-1")}
    if value is not None:
        item["low_balance_alert"] = value
    await put_wire_items(dynamodb, tables.balance_settings, [item])


def alert_item(*, sent: bool, updated: str, setting: str = "50") -> dict[str, Any]:
    return {
        "PK": s("USERS#u-1"),
        "SK": s("ALERT#u-1"),
        "type": s("alert"),
        "alert_sent": {"BOOL": sent},
        "updated_date": s(updated),
        "balance_setting": n(setting),
        "available_balance": n("12.5"),
        "current_balance": n("80"),
    }


async def stored_alert(dynamodb: DynamoDBClient, tables: TableNames) -> Any:
    answer = await dynamodb.get_item(
        TableName=tables.pave,
        Key={"PK": s("USERS#u-1"), "SK": s("ALERT#u-1")},
        ConsistentRead=True,
    )
    return answer.get("Item")


async def lock_items(dynamodb: DynamoDBClient, tables: TableNames) -> list[Any]:
    return (await dynamodb.scan(TableName=tables.locks, ConsistentRead=True))["Items"]


# --- the decisions ---------------------------------------------------------------------


async def test_sent_writes_the_alert_row(
    dynamodb: DynamoDBClient, tables: TableNames, execute: Execute
) -> None:
    await set_threshold(dynamodb, tables, n("50.00"))

    answer = await evaluate(execute, "49.99", "120.10")

    assert answer == {
        "decision": "SENT",
        "alert": {
            "alertSent": True,
            "updatedDate": "2026-12-02T11:31:28Z",
            "balanceSetting": "50.00",
            "availableBalance": "49.99",
            "currentBalance": "120.10",
            "cooldownUntil": "2026-12-09T11:31:28Z",
        },
    }
    assert await stored_alert(dynamodb, tables) == {
        "PK": s("USERS#u-1"),
        "SK": s("ALERT#u-1"),
        "type": s("alert"),
        "alert_sent": {"BOOL": True},
        "updated_date": s("2026-12-02T11:31:28Z"),
        "balance_setting": n("50"),
        "available_balance": n("49.99"),
        "current_balance": n("120.1"),
    }
    assert await lock_items(dynamodb, tables) == []


@pytest.mark.parametrize("threshold", [None, NULL], ids=["no-settings-row", "null-setting"])
async def test_alerts_off_writes_nothing(
    dynamodb: DynamoDBClient, tables: TableNames, execute: Execute, threshold: Any
) -> None:
    if threshold is not None:
        await set_threshold(dynamodb, tables, threshold)

    answer = await evaluate(execute, "1")

    assert answer == {"decision": "ALERTS_OFF", "alert": None}
    assert await stored_alert(dynamodb, tables) is None
    assert await lock_items(dynamodb, tables) == []


async def test_a_settings_row_without_the_attribute_is_alerts_off(
    dynamodb: DynamoDBClient, tables: TableNames, execute: Execute
) -> None:
    await set_threshold(dynamodb, tables, None)
    assert (await evaluate(execute, "1"))["decision"] == "ALERTS_OFF"


@pytest.mark.parametrize("available", ["50", "50.01", "1000"])
async def test_at_or_above_the_threshold_writes_nothing(
    dynamodb: DynamoDBClient, tables: TableNames, execute: Execute, available: str
) -> None:
    await set_threshold(dynamodb, tables, n("50"))

    assert await evaluate(execute, available) == {"decision": "ABOVE_THRESHOLD", "alert": None}
    assert await stored_alert(dynamodb, tables) is None


@pytest.mark.parametrize(
    ("sent_ago", "decision"),
    [
        (timedelta(days=7) - timedelta(seconds=1), "COOLDOWN"),
        (timedelta(hours=1), "COOLDOWN"),
        (timedelta(days=7), "SENT"),
        (timedelta(days=8), "SENT"),
    ],
    ids=["one-second-before-the-end", "an-hour-ago", "exactly-seven-days", "eight-days"],
)
async def test_the_cooldown_runs_seven_days_from_the_last_alert(
    dynamodb: DynamoDBClient,
    tables: TableNames,
    execute: Execute,
    sent_ago: timedelta,
    decision: str,
) -> None:
    await set_threshold(dynamodb, tables, n("50"))
    previous = alert_item(sent=True, updated=format_instant(NOW - sent_ago))
    await put_wire_items(dynamodb, tables.pave, [previous])

    answer = await evaluate(execute, "10")

    assert answer["decision"] == decision
    if decision == "COOLDOWN":
        assert answer["alert"]["updatedDate"] == format_instant(NOW - sent_ago)
        assert await stored_alert(dynamodb, tables) == previous
    else:
        assert (await stored_alert(dynamodb, tables))["updated_date"] == s("2026-12-02T11:31:28Z")


async def test_a_row_whose_alert_was_not_sent_does_not_cool_down(
    dynamodb: DynamoDBClient, tables: TableNames, execute: Execute
) -> None:
    await set_threshold(dynamodb, tables, n("50"))
    await put_wire_items(
        dynamodb, tables.pave, [alert_item(sent=False, updated="2026-12-02T11:00:00Z")]
    )

    assert (await evaluate(execute, "10"))["decision"] == "SENT"


async def test_the_order_of_the_decisions(
    dynamodb: DynamoDBClient, tables: TableNames, execute: Execute
) -> None:
    # In cooldown and below threshold, with alerts off: ALERTS_OFF comes first.
    await put_wire_items(
        dynamodb, tables.pave, [alert_item(sent=True, updated="2026-12-02T11:00:00Z")]
    )
    assert (await evaluate(execute, "10"))["decision"] == "ALERTS_OFF"
    # Above the threshold and in cooldown: ABOVE_THRESHOLD comes before COOLDOWN.
    await set_threshold(dynamodb, tables, n("50"))
    assert (await evaluate(execute, "60"))["decision"] == "ABOVE_THRESHOLD"
    assert (await evaluate(execute, "10"))["decision"] == "COOLDOWN"


# --- the lock --------------------------------------------------------------------------


async def put_go_lock(dynamodb: DynamoDBClient, tables: TableNames) -> dict[str, Any]:
    item = {
        "key": s(LOCK_KEY),
        "ownerName": s("go-balance-alert"),
        "leaseDuration": s("1m0s"),
        "recordVersionNumber": s("1764674288000000000:GOPEER"),
    }
    await put_wire_items(dynamodb, tables.locks, [item])
    return item


async def test_a_lock_held_by_a_go_service_is_locked_and_nothing_is_written(
    dynamodb: DynamoDBClient, tables: TableNames, execute: Execute, dynamodb_calls: CallCounter
) -> None:
    await set_threshold(dynamodb, tables, n("50"))
    go_lock = await put_go_lock(dynamodb, tables)
    dynamodb_calls.reset()

    assert await evaluate(execute, "10") == {"decision": "LOCKED", "alert": None}

    assert dict(dynamodb_calls.calls) == {"GetItem": 1}
    assert await stored_alert(dynamodb, tables) is None
    assert await lock_items(dynamodb, tables) == [go_lock]


async def test_two_concurrent_evaluations_one_sent_one_locked(
    dynamodb: DynamoDBClient, tables: TableNames, execute: Execute
) -> None:
    await set_threshold(dynamodb, tables, n("50"))
    # Hold whichever evaluation gets the lock at its first read, until the other answered
    # (the 30 s bounds only keep a broken run from hanging; a loaded machine is slow).
    other_answered = asyncio.Event()

    async def hold_the_winner(params: dict[str, Any], **_: Any) -> None:
        if params.get("TableName") == tables.balance_settings:
            await asyncio.wait_for(other_answered.wait(), timeout=30)

    # aiobotocore awaits coroutine handlers; botocore's stubs only know plain ones.
    events: Any = dynamodb.meta.events
    events.register("before-parameter-build.dynamodb.GetItem", hold_the_winner)
    try:
        first = asyncio.create_task(evaluate(execute, "10"))
        second = asyncio.create_task(evaluate(execute, "10"))
        done, _ = await asyncio.wait(
            {first, second}, timeout=30, return_when=asyncio.FIRST_COMPLETED
        )
        [loser] = done
        assert loser.result() == {"decision": "LOCKED", "alert": None}
        other_answered.set()
        [winner] = {first, second} - done
        assert (await winner)["decision"] == "SENT"
    finally:
        events.unregister("before-parameter-build.dynamodb.GetItem", hold_the_winner)

    assert (await stored_alert(dynamodb, tables))["alert_sent"] == {"BOOL": True}
    assert await lock_items(dynamodb, tables) == []


async def test_a_failing_evaluation_releases_its_lock(
    dynamodb: DynamoDBClient, tables: TableNames, dynamo: Dynamo
) -> None:
    await set_threshold(dynamodb, tables, n("50"))
    broken = Dynamo(dynamodb, dataclasses.replace(tables, balance_settings="no-such-table"))
    locks = LockClient(dynamo)

    with pytest.raises(DynamoDBFailure):
        await evaluate_directly(broken, locks)

    assert await lock_items(dynamodb, tables) == []
    assert (await evaluate_directly(dynamo, locks)).decision is Decision.SENT


async def test_a_dead_owners_lock_is_taken_over_by_a_later_evaluation_after_its_lease(
    dynamodb: DynamoDBClient, tables: TableNames, dynamo: Dynamo
) -> None:
    await set_threshold(dynamodb, tables, n("50"))
    await put_go_lock(dynamodb, tables)
    timer = FakeTimer()
    locks = LockClient(dynamo, timer=timer)

    assert (await evaluate_directly(dynamo, locks)).decision is Decision.LOCKED
    timer.now = 59.0
    assert (await evaluate_directly(dynamo, locks)).decision is Decision.LOCKED
    assert await stored_alert(dynamodb, tables) is None
    timer.now = 60.5

    assert (await evaluate_directly(dynamo, locks)).decision is Decision.SENT
    assert await lock_items(dynamodb, tables) == []


async def test_a_sent_evaluation_costs_the_protocols_calls_and_no_more(
    dynamodb: DynamoDBClient, tables: TableNames, execute: Execute, dynamodb_calls: CallCounter
) -> None:
    await set_threshold(dynamodb, tables, n("50"))
    dynamodb_calls.reset()

    assert (await evaluate(execute, "10"))["decision"] == "SENT"

    sent = [(name, params.get("TableName")) for name, params in dynamodb_calls.requests]
    # Acquire (read, conditional put), the two reads together, the alert row in one
    # transaction with the check that the lock is still ours, the release.
    assert sent[:2] == [("GetItem", tables.locks), ("PutItem", tables.locks)]
    assert sorted(sent[2:4]) == [("GetItem", tables.pave), ("GetItem", tables.balance_settings)]
    assert sent[4:] == [("TransactWriteItems", None), ("DeleteItem", tables.locks)]
    transaction = dynamodb_calls.requests[4][1]["TransactItems"]
    assert [(kind, entry["TableName"]) for one in transaction for kind, entry in one.items()] == [
        ("ConditionCheck", tables.locks),
        ("Put", tables.pave),
    ]


async def test_heartbeats_keep_a_long_evaluations_lock(
    dynamodb: DynamoDBClient, tables: TableNames, dynamo: Dynamo, dynamodb_calls: CallCounter
) -> None:
    await set_threshold(dynamodb, tables, n("50"))
    lease, beat = timedelta(seconds=1), timedelta(milliseconds=100)
    slow_locks = LockClient(dynamo, lease=lease, heartbeat_period=beat)
    other_locks = LockClient(dynamo, lease=lease, heartbeat_period=beat)

    async def a_slow_settings_read(params: dict[str, Any], **_: Any) -> None:
        if params.get("TableName") == tables.balance_settings:
            await asyncio.sleep(1.5)

    events: Any = dynamodb.meta.events
    events.register("before-parameter-build.dynamodb.GetItem", a_slow_settings_read)
    try:
        slow = asyncio.create_task(evaluate_directly(dynamo, slow_locks))
        await asyncio.sleep(0.1)
        # Seen once, then again after more than the lease: without heartbeats this second
        # look would take the lock over (the sighting is a lease old).
        first = await evaluate_directly(dynamo, other_locks)
        await asyncio.sleep(1.1)
        second = await evaluate_directly(dynamo, other_locks)
        outcome = await slow
    finally:
        events.unregister("before-parameter-build.dynamodb.GetItem", a_slow_settings_read)

    assert (first.decision, second.decision) == (Decision.LOCKED, Decision.LOCKED)
    assert outcome.decision is Decision.SENT
    assert dynamodb_calls.calls["UpdateItem"] >= 5
    assert await lock_items(dynamodb, tables) == []
