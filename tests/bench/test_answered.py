"""The floor `direct, answered` (bench/answered.py) answers by the contract's read rules: the
latest mine's expenses in the contract's order, today's payday only, no expired item; on a
seeded bench user, the same fields and the same rows as the gateway's answer."""

from __future__ import annotations

import asyncio
from datetime import date
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING, Any

import orjson

from bench.answered import UserItems, answer_body, latest_expenses, user_answer
from bench.direct import COLLECTION, read_users
from gateway.settings import Settings
from loaders.dynamodb import Dynamo
from loaders.entities import PAYDAY
from loaders.tables import TableNames
from schema.context import build_context
from schema.principal import DASHBOARD, Principal
from schema.root import build_schema
from support.every_field import every_field
from support.fixed_clock import FixedClock
from support.seed import RECURRING_PER_MINE, RITUALS_PER_MINE, seed_users
from tests.conftest import NOW

if TYPE_CHECKING:
    from types_aiobotocore_dynamodb import DynamoDBClient

LATEST = "2026-12-01T08:00:00Z"
OLDER = "2026-11-01T08:00:00Z"
MINE = {"PK": "MINE#u", "SK": f"TIME#{LATEST}", "mined_at": LATEST, "recurring_count": 3}


def expense(mine: str, name: str, due: str | None) -> dict[str, Any]:
    item: dict[str, Any] = {"SK": f"RECURRING#{mine}#MERCHANT#{name}", "merchant_name": name}
    item |= {"last_mine": mine, "amount": Decimal("1.5"), "ttl": Decimal(4102444800)}
    return item | ({"due_date": due} if due is not None else {})


def test_only_the_latest_mines_expenses_answer_by_due_date_then_name() -> None:
    expenses = [
        expense(OLDER, "Older", "2026-12-01"),
        expense(LATEST, "Zed", "2026-12-03"),
        expense(LATEST, "Undated", None),
        expense(LATEST, "Beta", "2026-12-02"),
        expense(LATEST, "Alpha", "2026-12-02"),
        # The same instant written with an offset is the same mine.
        expense("2026-12-01T09:00:00+01:00", "Offset", "2026-12-04"),
    ]
    answered = latest_expenses(MINE, expenses)
    names = [e["merchantName"] for e in answered]
    assert names == ["Alpha", "Beta", "Zed", "Offset", "Undated"]
    assert answered[0] == {
        "merchantName": "Alpha",
        "lastMine": LATEST,
        "amount": Decimal("1.5"),
        "dueDate": "2026-12-02",
    }
    assert latest_expenses(None, expenses) == []


def test_yesterdays_payday_is_not_served() -> None:
    payday = {"PK": "PAYDAY#u", "SK": "PREDICTION", "prediction_date": "2026-12-01"}
    items = UserItems("u", {}, [MINE], [], {PAYDAY.key(user_id="u"): payday})
    assert user_answer(items, date(2026, 12, 2))["payday"] is None
    today = user_answer(items, date(2026, 12, 1))
    assert today["payday"] == {"predictionDate": "2026-12-01"}
    assert today["latestMine"] == {"minedAt": LATEST, "recurringCount": 3}


async def test_a_seeded_user_answers_the_gateways_fields_and_rows(
    dynamodb: DynamoDBClient, tables: TableNames, dynamo: Dynamo, settings: Settings
) -> None:
    await seed_users(dynamo, ["bench-a"], NOW, settings)
    reads = await read_users(
        dynamodb, tables, ["bench-a"], NOW.date(), COLLECTION, asyncio.Semaphore(8)
    )
    floor = orjson.loads(answer_body(reads, tables, ["bench-a"], NOW))["data"]["user"]

    schema = build_schema()
    query = f'{{ user(id: "bench-a") {every_field(schema._schema, "User")} }}'
    context = build_context(
        dynamo=dynamo, principal=Principal("dash", frozenset({DASHBOARD})), clock=FixedClock(NOW)
    )
    result = await schema.execute(query, context_value=context)
    assert result.errors is None
    assert result.data is not None
    gateway = result.data["user"]

    assert len(floor["recurringExpenses"]) == RECURRING_PER_MINE
    assert len(floor["rituals"]) == RITUALS_PER_MINE
    # The same answer, up to what the floor leaves to a declared projection per type: a
    # field with no attribute (null in the gateway's answer, absent in the floor's; the
    # alert's cooldown, computed), and the form of a number (every one a Decimal's).
    del gateway["alert"]["cooldownUntil"]
    assert comparable(floor) == comparable(gateway)


def comparable(value: Any) -> Any:
    if isinstance(value, dict):
        return {name: comparable(inner) for name, inner in value.items() if inner is not None}
    if isinstance(value, list):
        return [comparable(inner) for inner in value]
    if isinstance(value, int | float) and not isinstance(value, bool):
        return Decimal(str(value))
    if isinstance(value, str):
        try:
            return Decimal(value)
        except InvalidOperation:
            return value
    return value
