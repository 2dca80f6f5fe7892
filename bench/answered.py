"""The floor `direct, answered`: what a hand-written endpoint must do with the direct floor's
reads (bench/direct.py, the single-table collection's plan) before it can answer. Every item
the reads returned is decoded by the project's decoder (`loaders.codec.from_wire`) and an
expired one dropped (its `ttl`); the contract's read rules pick what answers (the payday of
today only, the latest mine's expenses by due date then merchant name, the newest scores,
this month's savings and the two before it); the answer, shaped like the GraphQL answer to
the bench's full-User selection, is written by orjson.

Shaped like, not byte-equal: an item's attributes become its fields by name (camel-cased),
without a declared projection per type, so an absent attribute is left out instead of null,
a computed field (the alert's cooldown) is missing, and every number is written as the
contract writes a Decimal; tests/bench/test_answered.py holds it equal to the gateway's
answer up to these. The cost is the one any answer pays: every value decoded, visited and
written.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime
from functools import cache
from typing import Any

import orjson

from bench.direct import LIMIT, MONTHS, Reads
from loaders import entities as e
from loaders.codec import Item, from_wire, is_live, months_back, parse_date, parse_instant
from loaders.keys import ItemKey, QueryKey
from loaders.rows.income_detection import method_of_attribute
from loaders.tables import TableNames
from schema.scalars import format_decimal

__all__ = ["UserItems", "answer", "answer_body", "latest_expenses", "user_answer", "user_items"]

#: Attributes that are keys or bookkeeping, never a field of the answer.
UNANSWERED = frozenset({"PK", "SK", "type", "ttl", "user_id"})
#: An expense without a due date sorts last, as the contract's order puts it.
NO_DUE_DATE = date.max.isoformat()


@dataclass(frozen=True, slots=True)
class UserItems:
    """One user's live items, decoded: the `USERS#<id>` partition by sort key (in sort-key
    order), the latest mine, the detection runs (newest first) and the point reads."""

    user_id: str
    partition: dict[str, Item]
    mines: list[Item]
    runs: list[Item]
    points: Mapping[ItemKey, Item]


def answer_body(reads: Reads, tables: TableNames, user_ids: list[str], now: datetime) -> bytes:
    """The JSON of the answer to the full-User selection for `user_ids` (`user` for one)."""
    return orjson.dumps(answer(reads, tables, user_ids, now), default=format_decimal)


def answer(reads: Reads, tables: TableNames, user_ids: list[str], now: datetime) -> dict[str, Any]:
    queried = {
        key: [item for item in map(from_wire, wire) if is_live(item, now)]
        for key, wire in reads.queried.items()
    }
    points = _points(reads, tables, now)
    users = [user_answer(user_items(user, queried, points), now.date()) for user in user_ids]
    if len(users) == 1:
        return {"data": {"user": users[0]}}
    return {"data": {"users": users}}


def _points(reads: Reads, tables: TableNames, now: datetime) -> dict[ItemKey, Item]:
    """The point reads' live items, by their key."""
    by_name = {name: table for table, name in tables.all().items()}
    points = {}
    for name, wire in reads.found.items():
        table = by_name[name]
        partition, sort = table.key_names
        for item in map(from_wire, wire):
            if is_live(item, now):
                points[ItemKey(table, item[partition], item[sort] if sort else None)] = item
    return points


def user_items(
    user_id: str, queried: Mapping[QueryKey, list[Item]], points: Mapping[ItemKey, Item]
) -> UserItems:
    """One user's items among a request's (the keys are the direct floor's plan's)."""
    table, pk = e.USERS.partition(user_id=user_id)
    sort_key = table.key_names[1]
    assert sort_key is not None
    mine = e.MINE.query(newest_first=True, limit=1, user_id=user_id)
    runs = e.INCOME_DETECTION_RUN.query(newest_first=True, limit=LIMIT, user_id=user_id)
    return UserItems(
        user_id,
        {item[sort_key]: item for item in queried.get(QueryKey(table, pk), [])},
        queried.get(mine, []),
        queried.get(runs, []),
        points,
    )


def user_answer(items: UserItems, today: date) -> dict[str, Any]:
    """The full User's fields, by the contract's read rules."""
    user = {"user_id": items.user_id}

    def point(entity: e.Entity[Any], **values: str) -> Item | None:
        key = entity.key(**user, **values)
        if entity.collection is e.USERS:  # read with the partition
            return items.partition.get(key.sk or "")
        return items.points.get(key)

    def prefixed(entity: e.Entity[Any]) -> list[Item]:
        prefix = entity.query(user_id=items.user_id).sk_prefix
        return [item for sk, item in items.partition.items() if sk.startswith(prefix)]

    payday = point(e.PAYDAY)
    if payday is not None and _day(payday.get("prediction_date")) != today:
        payday = None  # served only on the UTC day it was computed
    mine = items.mines[0] if items.mines else None
    months = (point(e.SAVINGS_MONTH, month=month) for month in months_back(today, MONTHS))
    settings = point(e.BALANCE_SETTINGS)
    return {
        "id": items.user_id,
        "payday": _optional(payday),
        "incomeVerification": _optional(point(e.INCOME_VERIFICATION)),
        "savingsMonths": [_month(month) for month in months if month is not None],
        "alert": _optional(point(e.ALERT)),
        "recurringExpenses": latest_expenses(mine, prefixed(e.RECURRING_EXPENSE)),
        "rituals": latest_expenses(mine, prefixed(e.RITUAL_EXPENSE)),
        "cashAdvanceScores": [output(s) for s in prefixed(e.CASH_ADVANCE_SCORE)[::-1][:LIMIT]],
        "incomeDetectionRuns": [_run(run) for run in items.runs],
        "income": _optional(point(e.INCOME)),
        "latestMine": _optional(mine),
        "paveLabel": _optional(point(e.PAVE_LABEL)),
        "lastPages": [output(page) for page in prefixed(e.LAST_PAGE)],
        "lowBalanceAlert": None if settings is None else settings.get("low_balance_alert"),
    }


def latest_expenses(mine: Item | None, expenses: list[Item]) -> list[dict[str, Any]]:
    """The expenses of the latest mine only (its time is its sort key's), by due date, then
    merchant name; none when the user was never mined."""
    if mine is None:
        return []
    mined_at = parse_instant(e.MINE.sk_value(mine["SK"], "mined_at"))
    # Each distinct `last_mine` parsed once (two mines' worth, as seeded).
    current = {
        text
        for text in {expense.get("last_mine") for expense in expenses}
        if text and parse_instant(text) == mined_at
    }
    latest = [expense for expense in expenses if expense.get("last_mine") in current]
    latest.sort(key=lambda x: (x.get("due_date") or NO_DUE_DATE, x.get("merchant_name") or ""))
    return [output(expense) for expense in latest]


def output(item: Mapping[str, Any]) -> dict[str, Any]:
    """An item's attributes as the answer's fields, nested maps and lists included."""
    return {camel(name): _value(value) for name, value in item.items() if name not in UNANSWERED}


def _value(value: Any) -> Any:
    if type(value) is dict:
        return {camel(name): _value(inner) for name, inner in value.items()}
    if type(value) is list:
        return [_value(inner) for inner in value]
    return value


def _month(item: Item) -> dict[str, Any]:
    # The month is the sort key's.
    return {"month": e.SAVINGS_MONTH.sk_value(item["SK"], "month"), **output(item)}


def _run(item: Item) -> dict[str, Any]:
    """A detection run: its `method_<m>_results` attributes are its `methodResults`."""
    answered: dict[str, Any] = {}
    results = []
    for name in sorted(item):
        method = method_of_attribute(name)
        if method is not None:
            results.append({"method": method, "transactions": _value(item[name])})
        elif name not in UNANSWERED:
            answered[camel(name)] = _value(item[name])
    answered["methodResults"] = results
    return answered


def _optional(item: Item | None) -> dict[str, Any] | None:
    return None if item is None else output(item)


def _day(value: object) -> date | None:
    return parse_date(value) if isinstance(value, str) and value else None


@cache
def camel(name: str) -> str:
    """`merchant_name` as `merchantName`."""
    head, *rest = name.split("_")
    return head + "".join(word.capitalize() for word in rest)
